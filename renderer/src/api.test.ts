import { describe, expect, it } from 'vitest';
import { apiClient } from '../../test/helpers/api';
import { clientAgainstTestApp } from '../../test/helpers/client-under-node';
import { createOrg, signIn } from '../../test/helpers/factories';
import { refreshSession, storedTokens, storeTokens } from './api';
import { handedOver } from './session-handover';

const client = clientAgainstTestApp();
const app = () => client.app();

/** A session whose access token the server refuses from now on (as once it expires). */
async function expiredSession() {
  const admin = await createOrg(app());
  const tokens = await signIn(app(), admin.email, admin.password);
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
    expect((await apiClient(app(), refreshed?.accessToken).get('/api/auth/me')).status).toBe(200);
    const next = await app().request('/api/auth/refresh', {
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
