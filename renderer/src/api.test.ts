import { IDBFactory } from 'fake-indexeddb';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { apiClient } from '../../test/helpers/api';
import { startTestApp, type TestApp } from '../../test/helpers/app';
import { createOrg, signIn } from '../../test/helpers/factories';
import { MemoryStorage } from '../../test/helpers/memory-storage';
import { refreshSession, storedTokens, storeTokens } from './api';
import { handedOver } from './session-handover';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  vi.unstubAllGlobals();
  await t?.close();
});
beforeEach(() => {
  vi.stubGlobal('window', { orbita: { serverUrl: t.url } });
  vi.stubGlobal('localStorage', new MemoryStorage());
  vi.stubGlobal('indexedDB', new IDBFactory());
});

/** A session whose access token the server refuses from now on (as once it expires). */
async function expiredSession() {
  const admin = await createOrg(t);
  const tokens = await signIn(t, admin.email, admin.password);
  return { ...tokens, accessToken: 'expired' };
}

describe('refreshing the session in turns with other tabs', () => {
  it('takes the tokens the last turn got where localStorage still shows the refresh token it used', async () => {
    const expired = await expiredSession();
    storeTokens(expired);
    const refreshed = await refreshSession('expired');
    expect(refreshed?.refreshToken).not.toBe(expired.refreshToken);

    // The next two tabs' turns, each reading what localStorage showed before the first tab's write.
    for (const _tab of [2, 3]) {
      localStorage.setItem('orbita.tokens', JSON.stringify(expired));
      expect(await refreshSession('expired')).toEqual(refreshed);
      expect(storedTokens()).toEqual(refreshed);
    }
    // Nobody presented a used refresh token again: the session goes on, and refreshes once more.
    expect((await apiClient(t, refreshed?.accessToken).get('/api/auth/me')).status).toBe(200);
    const next = await t.request('/api/auth/refresh', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ refreshToken: refreshed?.refreshToken }),
    });
    expect(next.status).toBe(200);
  });

  it('keeps nothing of the session on the device after sign-out', async () => {
    const expired = await expiredSession();
    storeTokens(expired);
    await refreshSession('expired');
    expect(await handedOver(expired.refreshToken)).toBeDefined();

    storeTokens(undefined);
    await expect
      .poll(async () => (await indexedDB.databases()).map((database) => database.name))
      .not.toContain('orbita.session');
    expect(await handedOver(expired.refreshToken)).toBeUndefined();
  });
});
