import { useEffect, useRef } from 'react';

/**
 * A key combination such as `n`, `/`, `?`, `Alt+1` or `Mod+s` (`Mod` is Ctrl, or ⌘ on macOS).
 * Plain keys do nothing while the user types in a field; combinations with Ctrl/⌘/Alt always work.
 */
export type Shortcut = string;

function typing(target: EventTarget | null): boolean {
  const element = target as HTMLElement | null;
  if (!element || typeof element.closest !== 'function') return false;
  return Boolean(element.closest('input, textarea, select, [contenteditable="true"], [role="combobox"]'));
}

/** Whether the keyboard event is the shortcut. */
export function matchesShortcut(event: KeyboardEvent, shortcut: Shortcut, mac = false): boolean {
  const parts = shortcut.split('+');
  const key = parts.pop() as string;
  const wants = new Set(parts.map((part) => part.toLowerCase()));
  const ctrl = wants.has('ctrl') || (wants.has('mod') && !mac);
  const meta = wants.has('meta') || (wants.has('mod') && mac);
  if (event.ctrlKey !== ctrl || event.metaKey !== meta || event.altKey !== wants.has('alt')) return false;
  // Shift is part of the character for keys like `?`; only named when asked for.
  if (wants.has('shift') && !event.shiftKey) return false;
  // `event.code` keeps Alt+digit working on layouts where Alt changes the character.
  if (/^\d$/.test(key)) return event.code === `Digit${key}` || event.key === key;
  if (/^[a-z]$/.test(key) && event.code === `Key${key.toUpperCase()}`) return true;
  return event.key.toLowerCase() === key.toLowerCase();
}

/** Runs `handler` when the shortcut is pressed, while the component is shown. */
export function useShortcut(shortcut: Shortcut, handler: () => void): void {
  const latest = useRef(handler);
  latest.current = handler;
  useEffect(() => {
    const mac = /Mac|iPhone|iPad/.test(navigator.platform);
    const onKey = (event: KeyboardEvent) => {
      if (!matchesShortcut(event, shortcut, mac)) return;
      const modified = event.ctrlKey || event.metaKey || event.altKey;
      if (!modified && typing(event.target)) return;
      event.preventDefault();
      latest.current();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [shortcut]);
}

/** The shortcuts listed in the help dialog (`?`), with their string keys. */
export const SHORTCUTS: { keys: string; action: string }[] = [
  { keys: 'Alt+1 … Alt+6', action: 'shortcuts.navigate' },
  { keys: '/', action: 'shortcuts.search' },
  { keys: 'N', action: 'shortcuts.newTask' },
  { keys: 'Ctrl+S', action: 'shortcuts.save' },
  { keys: 'Ctrl+Enter', action: 'shortcuts.send' },
  { keys: '?', action: 'shortcuts.help' },
];
