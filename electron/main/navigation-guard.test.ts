import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import type { WebContentsLike } from './electron-api';
import { guardNavigation, permissionRequestHandler } from './navigation-guard';

class FakeWebContents extends EventEmitter {
  openHandler?: (details: { url: string }) => { action: 'deny' };
  setWindowOpenHandler(handler: (details: { url: string }) => { action: 'deny' }) {
    this.openHandler = handler;
  }
  /** Emits a navigation event and tells whether a listener refused it. */
  navigate(event: 'will-navigate' | 'will-redirect', url: string): boolean {
    let prevented = false;
    this.emit(event, { preventDefault: () => (prevented = true) }, url);
    return prevented;
  }
}

function guarded() {
  const contents = new FakeWebContents();
  const opened: string[] = [];
  guardNavigation(contents as unknown as WebContentsLike, { openExternal: (url) => opened.push(url) });
  return { contents, opened };
}

describe('navigation guard', () => {
  it('refuses every new window, opening web links in the system browser', () => {
    const { contents, opened } = guarded();
    expect(contents.openHandler?.({ url: 'https://example.org/help' })).toEqual({ action: 'deny' });
    expect(contents.openHandler?.({ url: 'http://192.168.1.10:3000/api/docs' })).toEqual({ action: 'deny' });
    expect(opened).toEqual(['https://example.org/help', 'http://192.168.1.10:3000/api/docs']);
  });

  it('never hands other schemes to the system', () => {
    const { contents, opened } = guarded();
    for (const url of [
      'file:///etc/passwd',
      'javascript:alert(1)',
      'smb://host/share',
      'app://orbita/tasks',
      'ms-settings:',
    ]) {
      expect(contents.openHandler?.({ url })).toEqual({ action: 'deny' });
      contents.navigate('will-navigate', url);
    }
    expect(opened).toEqual([]);
  });

  it("lets the page navigate within the app's origin only", () => {
    const { contents, opened } = guarded();
    expect(contents.navigate('will-navigate', 'app://orbita/tasks')).toBe(false);
    expect(contents.navigate('will-navigate', 'https://example.org/')).toBe(true);
    expect(contents.navigate('will-navigate', 'file:///home/user/')).toBe(true);
    expect(contents.navigate('will-navigate', 'app://evil/')).toBe(true);
    expect(opened).toEqual(['https://example.org/']);
  });

  it('refuses redirects away from the app without opening them', () => {
    const { contents, opened } = guarded();
    expect(contents.navigate('will-redirect', 'https://example.org/')).toBe(true);
    expect(contents.navigate('will-redirect', 'app://orbita/')).toBe(false);
    expect(opened).toEqual([]);
  });

  it("grants a few permissions to the app's pages and nothing to anyone else", () => {
    const ask = (permission: string, requestingUrl?: string) => {
      let granted: boolean | undefined;
      permissionRequestHandler({}, permission, (answer) => (granted = answer), { requestingUrl });
      return granted;
    };
    expect(ask('notifications', 'app://orbita/')).toBe(true);
    expect(ask('clipboard-sanitized-write', 'app://orbita/tasks')).toBe(true);
    expect(ask('media', 'app://orbita/')).toBe(false);
    expect(ask('geolocation', 'app://orbita/')).toBe(false);
    expect(ask('notifications', 'https://example.org/')).toBe(false);
    expect(ask('notifications')).toBe(false);
  });
});
