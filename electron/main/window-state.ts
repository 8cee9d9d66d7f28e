import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
// zod's mini build: the full one would be most of the main bundle.
import * as z from 'zod/mini';
import type { BrowserWindowLike, Rectangle } from './electron-api';

/** Where and how large the window was. Without x/y Electron centres it. */
export interface WindowState {
  x?: number;
  y?: number;
  width: number;
  height: number;
  maximized: boolean;
}

export const DEFAULT_WINDOW_STATE: WindowState = { width: 1280, height: 800, maximized: false };
export const MIN_WINDOW_SIZE = { width: 800, height: 600 };

const storedState = z.object({
  x: z.optional(z.int()),
  y: z.optional(z.int()),
  width: z.int().check(z.minimum(1)),
  height: z.int().check(z.minimum(1)),
  maximized: z.boolean(),
});

/**
 * Fits `state` on the displays (their work areas, the primary one first): the display it overlaps
 * most keeps it, moved and shrunk to lie wholly inside; a window on no display (one that was
 * unplugged) is centred on the primary display.
 */
export function fitToDisplays(state: WindowState, workAreas: readonly Rectangle[]): WindowState {
  const primary = workAreas[0];
  if (!primary) return state;
  const sizeOn = (area: Rectangle) => ({
    width: Math.min(Math.max(state.width, MIN_WINDOW_SIZE.width), area.width),
    height: Math.min(Math.max(state.height, MIN_WINDOW_SIZE.height), area.height),
  });
  if (state.x === undefined || state.y === undefined) {
    return { ...sizeOn(primary), maximized: state.maximized };
  }
  const bounds = { x: state.x, y: state.y, width: state.width, height: state.height };
  let best: Rectangle | undefined;
  let bestOverlap = 0;
  for (const area of workAreas) {
    const overlap = intersection(bounds, area);
    if (overlap > bestOverlap) {
      best = area;
      bestOverlap = overlap;
    }
  }
  const area = best ?? primary;
  const size = sizeOn(area);
  if (!best) {
    return {
      x: area.x + Math.round((area.width - size.width) / 2),
      y: area.y + Math.round((area.height - size.height) / 2),
      ...size,
      maximized: state.maximized,
    };
  }
  return {
    x: clamp(state.x, area.x, area.x + area.width - size.width),
    y: clamp(state.y, area.y, area.y + area.height - size.height),
    ...size,
    maximized: state.maximized,
  };
}

export interface WindowStateStore {
  /** The remembered state fitted to the current displays; the defaults when there is none or it is unreadable. */
  load(): WindowState;
  /** Remembers the window's state as it changes (written at most every `debounceMs`) and when it closes. */
  track(window: BrowserWindowLike): void;
}

/** Window state kept as JSON in `file` (in userData). */
export function createWindowStateStore(options: {
  file: string;
  workAreas: () => Rectangle[];
  debounceMs?: number;
  warn?: (message: string) => void;
}): WindowStateStore {
  const debounceMs = options.debounceMs ?? 500;
  const warn = options.warn ?? ((message: string) => console.warn(message));

  function read(): WindowState {
    let raw: string;
    try {
      raw = readFileSync(options.file, 'utf8');
    } catch {
      return DEFAULT_WINDOW_STATE;
    }
    try {
      return storedState.parse(JSON.parse(raw));
    } catch {
      warn(`Window state in ${options.file} is unreadable; using the defaults.`);
      return DEFAULT_WINDOW_STATE;
    }
  }

  function write(state: WindowState): void {
    try {
      mkdirSync(path.dirname(options.file), { recursive: true });
      // Written aside and renamed, so a crash mid-write never leaves half a file.
      const temporary = `${options.file}.tmp`;
      writeFileSync(temporary, `${JSON.stringify(state)}\n`);
      renameSync(temporary, options.file);
    } catch (error) {
      warn(`Could not save the window state: ${(error as Error).message}`);
    }
  }

  return {
    load: () => fitToDisplays(read(), options.workAreas()),
    track(window) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const save = () => {
        clearTimeout(timer);
        timer = undefined;
        if (window.isDestroyed()) return;
        const bounds = window.getNormalBounds();
        write({
          x: Math.round(bounds.x),
          y: Math.round(bounds.y),
          width: Math.round(bounds.width),
          height: Math.round(bounds.height),
          maximized: window.isMaximized(),
        });
      };
      const later = () => {
        clearTimeout(timer);
        timer = setTimeout(save, debounceMs);
      };
      for (const event of ['resize', 'move', 'maximize', 'unmaximize'] as const) window.on(event, later);
      window.on('close', save);
      window.on('closed', () => clearTimeout(timer));
    },
  };
}

function intersection(a: Rectangle, b: Rectangle): number {
  const width = Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x);
  const height = Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y);
  return width > 0 && height > 0 ? width * height : 0;
}

function clamp(value: number, low: number, high: number): number {
  return Math.min(Math.max(value, low), high);
}
