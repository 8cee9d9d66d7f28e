import { describe, expect, it } from 'vitest';
import { matchesShortcut } from './shortcuts';

const key = (init: Partial<KeyboardEvent>) =>
  ({ key: '', code: '', ctrlKey: false, metaKey: false, altKey: false, shiftKey: false, ...init }) as KeyboardEvent;

describe('keyboard shortcuts', () => {
  it('match plain keys, and letters by their place on any layout', () => {
    expect(matchesShortcut(key({ key: 'n', code: 'KeyN' }), 'n')).toBe(true);
    expect(matchesShortcut(key({ key: 'т', code: 'KeyN' }), 'n')).toBe(true);
    expect(matchesShortcut(key({ key: 'n', code: 'KeyN', ctrlKey: true }), 'n')).toBe(false);
    expect(matchesShortcut(key({ key: '?', code: 'Slash', shiftKey: true }), '?')).toBe(true);
    expect(matchesShortcut(key({ key: '/', code: 'Slash' }), '/')).toBe(true);
  });

  it('treat Mod as Ctrl, or ⌘ on macOS, and match Alt+digit by the key position', () => {
    expect(matchesShortcut(key({ key: 's', code: 'KeyS', ctrlKey: true }), 'Mod+s')).toBe(true);
    expect(matchesShortcut(key({ key: 's', code: 'KeyS', metaKey: true }), 'Mod+s')).toBe(false);
    expect(matchesShortcut(key({ key: 's', code: 'KeyS', metaKey: true }), 'Mod+s', true)).toBe(true);
    expect(matchesShortcut(key({ key: '¡', code: 'Digit1', altKey: true }), 'Alt+1')).toBe(true);
    expect(matchesShortcut(key({ key: '1', code: 'Digit1' }), 'Alt+1')).toBe(false);
  });
});
