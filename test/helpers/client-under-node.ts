import { IDBFactory } from 'fake-indexeddb';
import { afterAll, beforeAll, beforeEach, vi } from 'vitest';
import { startTestApp, type TestApp } from './app';

/** `localStorage` as one page (or tab) sees it, in memory: for client code run under Node. */
export class MemoryStorage {
  private items = new Map<string, string>();
  getItem(key: string) {
    return this.items.get(key) ?? null;
  }
  setItem(key: string, value: string) {
    this.items.set(key, value);
  }
  removeItem(key: string) {
    this.items.delete(key);
  }
}

/**
 * Runs the renderer's client code under Node against a test app started for the file: each test
 * gets a fresh page's globals (the server's address, localStorage, IndexedDB). `app()` is the app.
 */
export function clientAgainstTestApp(): { app: () => TestApp } {
  let t: TestApp | undefined;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => {
    vi.unstubAllGlobals();
    await t?.close();
  });
  beforeEach(() => {
    vi.stubGlobal('window', { orbita: { serverUrl: t?.url } });
    vi.stubGlobal('localStorage', new MemoryStorage());
    vi.stubGlobal('indexedDB', new IDBFactory());
  });
  return { app: () => t as TestApp };
}
