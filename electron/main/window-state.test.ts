import { EventEmitter } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { BrowserWindowLike, Rectangle } from './electron-api';
import { createWindowStateStore, DEFAULT_WINDOW_STATE, fitToDisplays } from './window-state';

const LAPTOP: Rectangle = { x: 0, y: 0, width: 1920, height: 1040 };
const MONITOR: Rectangle = { x: 1920, y: 0, width: 2560, height: 1400 };

class FakeWindow extends EventEmitter {
  bounds: Rectangle = { x: 100, y: 80, width: 1200, height: 700 };
  maximized = false;
  destroyed = false;
  getNormalBounds = () => this.bounds;
  isMaximized = () => this.maximized;
  isDestroyed = () => this.destroyed;
}

let dir: string;
let file: string;
let warnings: string[];

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'orbita-window-state-'));
  file = path.join(dir, 'userData', 'window-state.json');
  warnings = [];
});

afterEach(() => {
  vi.useRealTimers();
  rmSync(dir, { recursive: true, force: true });
});

const store = (workAreas: Rectangle[] = [LAPTOP]) =>
  createWindowStateStore({ file, workAreas: () => workAreas, warn: (message) => warnings.push(message) });

describe('window state', () => {
  it('starts centred at the default size when nothing is remembered', () => {
    expect(store().load()).toEqual({ width: 1280, height: 800, maximized: false });
  });

  it('remembers bounds and maximized when the window closes, and restores them', () => {
    const window = new FakeWindow();
    store().track(window as unknown as BrowserWindowLike);
    window.bounds = { x: 200, y: 100, width: 1400, height: 900 };
    window.maximized = true;
    window.emit('close');
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({
      x: 200,
      y: 100,
      width: 1400,
      height: 900,
      maximized: true,
    });
    expect(store().load()).toEqual({ x: 200, y: 100, width: 1400, height: 900, maximized: true });
  });

  it('writes moves and resizes once they settle, not on every event', () => {
    vi.useFakeTimers();
    const window = new FakeWindow();
    store().track(window as unknown as BrowserWindowLike);
    for (let x = 100; x < 400; x += 50) {
      window.bounds = { ...window.bounds, x };
      window.emit('move');
      vi.advanceTimersByTime(100);
    }
    expect(existsSync(file)).toBe(false);
    vi.advanceTimersByTime(500);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({ x: 350 });
    window.bounds = { ...window.bounds, width: 1000 };
    window.emit('resize');
    vi.advanceTimersByTime(499);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({ width: 1200 });
    vi.advanceTimersByTime(1);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({ width: 1000 });
  });

  it('falls back to the defaults when the file is corrupt or of the wrong shape', () => {
    const corrupt = ['{"x": 10, "y"', 'null', '{"x":"left","y":0,"width":800,"height":600,"maximized":false}', '[]'];
    for (const content of corrupt) {
      const stateFile = path.join(dir, 'state.json');
      writeFileSync(stateFile, content);
      const loaded = createWindowStateStore({
        file: stateFile,
        workAreas: () => [LAPTOP],
        warn: (message) => warnings.push(message),
      }).load();
      expect(loaded, content).toEqual({ width: 1280, height: 800, maximized: false });
    }
    expect(warnings).toHaveLength(4);
  });

  it('does not write once the window is destroyed', () => {
    vi.useFakeTimers();
    const window = new FakeWindow();
    store().track(window as unknown as BrowserWindowLike);
    window.emit('move');
    window.destroyed = true;
    window.emit('closed');
    vi.advanceTimersByTime(1000);
    expect(existsSync(file)).toBe(false);
  });
});

describe('fitting the window to the displays', () => {
  it('centres a window left on a display that is gone on the primary display', () => {
    const onGoneMonitor = { x: 2500, y: 200, width: 1400, height: 900, maximized: false };
    expect(fitToDisplays(onGoneMonitor, [LAPTOP])).toEqual({
      x: 260,
      y: 70,
      width: 1400,
      height: 900,
      maximized: false,
    });
  });

  it('keeps a window on the display it overlaps most, moved wholly inside it', () => {
    const straddling = { x: 1800, y: -50, width: 1400, height: 900, maximized: false };
    expect(fitToDisplays(straddling, [LAPTOP, MONITOR])).toEqual({
      x: 1920,
      y: 0,
      width: 1400,
      height: 900,
      maximized: false,
    });
    const mostlyOnLaptop = { x: -300, y: 500, width: 1000, height: 700, maximized: true };
    expect(fitToDisplays(mostlyOnLaptop, [LAPTOP, MONITOR])).toEqual({
      x: 0,
      y: 340,
      width: 1000,
      height: 700,
      maximized: true,
    });
  });

  it('shrinks a window larger than its display, and the default size on a small screen', () => {
    const small = { x: 0, y: 0, width: 1366, height: 728 };
    expect(fitToDisplays({ x: 10, y: 10, width: 2400, height: 1300, maximized: false }, [small])).toEqual({
      x: 0,
      y: 0,
      width: 1366,
      height: 728,
      maximized: false,
    });
    expect(fitToDisplays(DEFAULT_WINDOW_STATE, [{ x: 0, y: 0, width: 1024, height: 700 }])).toEqual({
      width: 1024,
      height: 700,
      maximized: false,
    });
  });

  it('leaves a window that fits where it was', () => {
    const placed = { x: 2000, y: 100, width: 1200, height: 800, maximized: false };
    expect(fitToDisplays(placed, [LAPTOP, MONITOR])).toEqual(placed);
  });
});
