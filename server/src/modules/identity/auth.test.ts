import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient } from '../../../../test/helpers/api';
import { startTestApp, type TestApp } from '../../../../test/helpers/app';
import { createMember, createOrg, signIn, tokenFromOutbox } from '../../../../test/helpers/factories';
import { jobsDone } from '../../../../test/helpers/jobs';
import { sha256Hex } from '../../platform/auth/secrets';
import { loadConfig } from '../../platform/config';
import { readOutbox } from '../../platform/mail/mailer';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

const anonymous = () => apiClient(t);

async function refresh(refreshToken: string) {
  return anonymous().post('/api/auth/refresh', { refreshToken });
}

async function sessionOf(refreshToken: string) {
  const { rows } = await t.database.db.query<{
    id: string;
    family_id: string;
    replaced_by_session_id: string | null;
    revoked_at: Date | null;
  }>('SELECT id, family_id, replaced_by_session_id, revoked_at FROM user_sessions WHERE refresh_token_hash = $1', [
    sha256Hex(refreshToken),
  ]);
  return rows[0];
}

/** Moves the rotation time of a token's session back, as if the grace period had passed. */
async function ageRotation(refreshToken: string, seconds: number) {
  await t.database.db.query(
    `UPDATE user_sessions SET replaced_at = replaced_at - make_interval(secs => $2) WHERE refresh_token_hash = $1`,
    [sha256Hex(refreshToken), seconds],
  );
}

describe('registration and sign-in', () => {
  it('registers an organization whose first user is an administrator, signed in', async () => {
    const response = await anonymous().post('/api/auth/register', {
      organizationName: 'Северный склад',
      name: 'Ирина',
      email: 'Irina@Example.org',
      password: 'long enough password',
    });
    expect(response.status).toBe(201);
    expect(response.body).toEqual({
      accessToken: expect.any(String),
      refreshToken: expect.any(String),
      expiresIn: 900,
    });
    const me = await apiClient(t, response.body.accessToken).get('/api/auth/me');
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({
      user: { name: 'Ирина', email: 'irina@example.org', isAdmin: true, status: 'active', roleIds: [] },
      roles: [],
      modules: { gps: true, finance: true },
      organization: {
        name: 'Северный склад',
        activeSkinId: null,
        health_schedule_enabled: false,
        billingBlocked: false,
      },
    });
  });

  it('refuses a taken e-mail with 409 and bad input with the fields named', async () => {
    const admin = await createOrg(t);
    const taken = await anonymous().post('/api/auth/register', {
      organizationName: 'Another',
      name: 'X',
      email: admin.email.toUpperCase(),
      password: 'long enough password',
    });
    expect(taken.status).toBe(409);
    expect(taken.body.code).toBe('email_taken');
    const bad = await anonymous().post('/api/auth/register', {
      organizationName: '',
      name: 'X',
      email: 'nope',
      password: 'short',
    });
    expect(bad.status).toBe(400);
    expect(bad.body.errors.map((e: { pointer: string }) => e.pointer).sort()).toEqual([
      '#/email',
      '#/organizationName',
      '#/password',
    ]);
  });

  it('signs in with the right password only, answering the same for an unknown e-mail', async () => {
    const admin = await createOrg(t);
    const tokens = await signIn(t, admin.email, admin.password);
    expect((await apiClient(t, tokens.accessToken).get('/api/auth/me')).body.user.id).toBe(admin.userId);
    const wrong = await anonymous().post('/api/auth/login', { email: admin.email, password: 'wrong password' });
    const unknown = await anonymous().post('/api/auth/login', {
      email: 'nobody@example.org',
      password: 'wrong password',
    });
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect({ ...wrong.body, requestId: undefined }).toEqual({ ...unknown.body, requestId: undefined });
  });

  it('locks an account after repeated failures, even for the right password, and not its neighbours', async () => {
    const admin = await createOrg(t);
    const neighbour = await createOrg(t);
    for (let attempt = 0; attempt < 5; attempt++) {
      expect((await anonymous().post('/api/auth/login', { email: admin.email, password: 'guess' })).status).toBe(401);
    }
    const locked = await anonymous().post('/api/auth/login', { email: admin.email, password: admin.password });
    expect(locked.status).toBe(429);
    expect(locked.body.code).toBe('too_many_attempts');
    expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(0);
    await signIn(t, neighbour.email, neighbour.password);
  });

  it('throttles a client address that tries many accounts', async () => {
    const admin = await createOrg(t);
    const from = { 'X-Forwarded-For': '203.0.113.7' };
    // Loopback is a trusted proxy, so the forwarded address is the client's.
    for (let attempt = 0; attempt < 50; attempt++) {
      await anonymous().request(
        'POST',
        '/api/auth/login',
        { email: `probe${attempt}@example.org`, password: 'x' },
        from,
      );
    }
    const blocked = await anonymous().request(
      'POST',
      '/api/auth/login',
      { email: admin.email, password: admin.password },
      from,
    );
    expect(blocked.status).toBe(429);
    await signIn(t, admin.email, admin.password);
  });

  it('refuses protected routes without a valid token, with WWW-Authenticate', async () => {
    const none = await anonymous().get('/api/auth/me');
    expect(none.status).toBe(401);
    expect(none.body.code).toBe('unauthenticated');
    expect(none.headers.get('www-authenticate')).toBe('Bearer');
    const forged = await apiClient(t, 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.bad').get('/api/auth/me');
    expect(forged.body.code).toBe('invalid_token');
  });
});

describe('access token lifetime', () => {
  it('lives 15 minutes by default', async () => {
    const admin = await createOrg(t);
    const { accessToken } = await signIn(t, admin.email, admin.password);
    const claims = decodeJwt(accessToken);
    expect((claims.exp as number) - (claims.iat as number)).toBe(900);
  });

  it('follows JWT_ACCESS_EXPIRES and is refused once expired', async () => {
    const short = await startTestApp({
      config: { accessTokenSeconds: loadConfig({ JWT_ACCESS_EXPIRES: '1s' }).accessTokenSeconds },
    });
    try {
      // Registration alone (no follow-up call) so a slow machine cannot outlive the one-second token first.
      const registered = await apiClient(short).post('/api/auth/register', {
        organizationName: 'Short-lived',
        name: 'Admin',
        email: 'short-lived@example.org',
        password: 'long enough password',
      });
      expect(registered.body.expiresIn).toBe(1);
      const claims = decodeJwt(registered.body.accessToken);
      expect((claims.exp as number) - (claims.iat as number)).toBe(1);
      await new Promise((resolve) => setTimeout(resolve, 2_100));
      const expired = await apiClient(short, registered.body.accessToken).get('/api/auth/me');
      expect(expired.status).toBe(401);
      expect(expired.body.code).toBe('token_expired');
      const renewed = await apiClient(short).post('/api/auth/refresh', { refreshToken: registered.body.refreshToken });
      expect(renewed.status).toBe(200);
    } finally {
      await short.close();
    }
    expect(loadConfig({ JWT_ACCESS_EXPIRES: '30m' }).accessTokenSeconds).toBe(1800);
  });
});

describe('refresh token rotation', () => {
  it('replaces the session by a new one of the same family, marking the old replaced by it', async () => {
    const admin = await createOrg(t);
    const a = admin.refreshToken;
    const b = (await refresh(a)).body.refreshToken as string;
    const c = (await refresh(b)).body.refreshToken as string;
    const [sa, sb, sc] = [await sessionOf(a), await sessionOf(b), await sessionOf(c)];
    expect(sa?.replaced_by_session_id).toBe(sb?.id);
    expect(sb?.replaced_by_session_id).toBe(sc?.id);
    expect(sc?.replaced_by_session_id).toBeNull();
    expect(new Set([sa?.family_id, sb?.family_id, sc?.family_id]).size).toBe(1);
    const newAccess = (await refresh(c)).body.accessToken;
    expect((await apiClient(t, newAccess).get('/api/auth/me')).status).toBe(200);
  });

  it('rotates the active session when the previous token comes back within the grace period (two tabs)', async () => {
    const admin = await createOrg(t);
    const a = admin.refreshToken;
    const first = await refresh(a);
    const second = await refresh(a);
    expect(first.status).toBe(200);
    expect(second.status).toBe(200);
    expect(second.body.refreshToken).not.toBe(first.body.refreshToken);
    // The newest tokens work; nobody was signed out.
    expect((await apiClient(t, second.body.accessToken).get('/api/auth/me')).status).toBe(200);
    expect((await refresh(second.body.refreshToken)).status).toBe(200);
  });

  it('survives two tabs refreshing at the same moment', async () => {
    const admin = await createOrg(t);
    const results = await Promise.all([refresh(admin.refreshToken), refresh(admin.refreshToken)]);
    expect(results.map((r) => r.status)).toEqual([200, 200]);
    for (const result of results) {
      expect((await apiClient(t, result.body.accessToken).get('/api/auth/me')).status).toBe(200);
    }
  });

  it('treats the previous token after the grace period as reuse and revokes the whole family', async () => {
    const admin = await createOrg(t);
    const a = admin.refreshToken;
    const b = await refresh(a);
    const c = await refresh(b.body.refreshToken);
    await ageRotation(b.body.refreshToken, 31);
    const reuse = await refresh(b.body.refreshToken);
    expect(reuse.status).toBe(401);
    expect(reuse.body.code).toBe('refresh_token_reused');
    // Every token of the family now fails, the newest ones too.
    expect((await refresh(c.body.refreshToken)).status).toBe(401);
    expect((await apiClient(t, c.body.accessToken).get('/api/auth/me')).status).toBe(401);
    expect((await sessionOf(c.body.refreshToken))?.revoked_at).not.toBeNull();
    // Another sign-in of the same user is another family and is untouched.
    const other = await signIn(t, admin.email, admin.password);
    expect((await refresh(other.refreshToken)).status).toBe(200);
  });

  it('treats an older rotated token as reuse once its rotation is older than the grace period', async () => {
    const admin = await createOrg(t);
    const a = admin.refreshToken;
    const b = await refresh(a);
    const c = await refresh(b.body.refreshToken);
    await ageRotation(a, 31);
    const reuse = await refresh(a);
    expect(reuse.body.code).toBe('refresh_token_reused');
    expect((await refresh(c.body.refreshToken)).status).toBe(401);
  });

  it('rotates the active session for every tab presenting one just-rotated token at once', async () => {
    const admin = await createOrg(t);
    const results = await Promise.all([1, 2, 3, 4].map(() => refresh(admin.refreshToken)));
    expect(results.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    for (const result of results) {
      expect((await apiClient(t, result.body.accessToken).get('/api/auth/me')).status).toBe(200);
    }
    // The token is presented again, one after another, within the grace period: still no reuse.
    for (let time = 0; time < 3; time += 1) expect((await refresh(admin.refreshToken)).status).toBe(200);
    const newest = await refresh(admin.refreshToken);
    expect((await refresh(newest.body.refreshToken)).status).toBe(200);
  });

  it('takes an older token of the family rotated within the grace period as another tab, not as reuse', async () => {
    const admin = await createOrg(t);
    const a = admin.refreshToken;
    const b = await refresh(a);
    const c = await refresh(b.body.refreshToken);
    const late = await refresh(a);
    expect(late.status).toBe(200);
    expect((await apiClient(t, c.body.accessToken).get('/api/auth/me')).status).toBe(200);
    expect((await refresh(late.body.refreshToken)).status).toBe(200);
  });

  it('refuses an unknown token without revoking anything', async () => {
    const response = await refresh('not-a-token-we-issued');
    expect(response.status).toBe(401);
    expect(response.body.code).toBe('invalid_refresh_token');
  });

  it('signs out: the family is revoked, its access token too', async () => {
    const admin = await createOrg(t);
    const tokens = await signIn(t, admin.email, admin.password);
    expect((await anonymous().post('/api/auth/logout', { refreshToken: tokens.refreshToken })).status).toBe(204);
    expect((await refresh(tokens.refreshToken)).status).toBe(401);
    expect((await apiClient(t, tokens.accessToken).get('/api/auth/me')).status).toBe(401);
    // The registration session of the same user is another family and still works.
    expect((await admin.client.get('/api/auth/me')).status).toBe(200);
  });
});

describe('signing out by the hash of a refresh token', () => {
  it('revokes the family, and the hash grants nothing else', async () => {
    const admin = await createOrg(t);
    const tokens = await signIn(t, admin.email, admin.password);
    const hash = sha256Hex(tokens.refreshToken);
    // What a device signed out offline keeps is no refresh token.
    expect((await refresh(hash)).status).toBe(401);
    expect((await refresh(tokens.refreshToken)).status).toBe(200);
    const current = await signIn(t, admin.email, admin.password);
    expect(
      (await anonymous().post('/api/auth/logout', { refreshTokenHash: sha256Hex(current.refreshToken) })).status,
    ).toBe(204);
    expect((await refresh(current.refreshToken)).status).toBe(401);
    expect((await apiClient(t, current.accessToken).get('/api/auth/me')).status).toBe(401);
    // An unknown hash is answered the same, revoking nothing.
    expect((await anonymous().post('/api/auth/logout', { refreshTokenHash: sha256Hex('unknown') })).status).toBe(204);
    expect((await admin.client.get('/api/auth/me')).status).toBe(200);
  });

  it('refuses neither, both, or a malformed hash with a problem', async () => {
    for (const body of [
      {},
      { refreshToken: 'a-token', refreshTokenHash: sha256Hex('a-token') },
      { refreshTokenHash: 'XYZ' },
    ]) {
      const response = await anonymous().post('/api/auth/logout', body);
      expect(response.status).toBe(400);
      expect(response.headers.get('content-type')).toContain('application/problem+json');
    }
  });
});

describe('password reset', () => {
  it('answers the same for known and unknown addresses, mailing only the known one', async () => {
    const admin = await createOrg(t);
    const before = (await readOutbox(t.dataDir)).length;
    const known = await anonymous().post('/api/auth/forgot-password', { email: admin.email });
    const unknown = await anonymous().post('/api/auth/forgot-password', { email: 'ghost@example.org' });
    expect(known.status).toBe(202);
    expect(unknown.status).toBe(202);
    expect(known.body).toEqual(unknown.body);
    await jobsDone(t);
    const mails = (await readOutbox(t.dataDir)).slice(before);
    expect(mails.map((mail) => mail.to)).toEqual([admin.email]);
  });

  it('sets the password once, ends every session, and the old password stops working', async () => {
    const admin = await createOrg(t);
    const second = await signIn(t, admin.email, admin.password);
    await anonymous().post('/api/auth/forgot-password', { email: admin.email });
    const token = await tokenFromOutbox(t, admin.email);
    expect((await anonymous().post('/api/auth/reset-password', { token, password: 'brand new password' })).status).toBe(
      204,
    );
    const again = await anonymous().post('/api/auth/reset-password', { token, password: 'another new password' });
    expect(again.status).toBe(400);
    expect(again.body.code).toBe('invalid_reset_token');
    expect((await admin.client.get('/api/auth/me')).status).toBe(401);
    expect((await refresh(second.refreshToken)).status).toBe(401);
    expect((await anonymous().post('/api/auth/login', { email: admin.email, password: admin.password })).status).toBe(
      401,
    );
    await signIn(t, admin.email, 'brand new password');
  });

  it('refuses an expired reset token', async () => {
    const admin = await createOrg(t);
    await anonymous().post('/api/auth/forgot-password', { email: admin.email });
    const token = await tokenFromOutbox(t, admin.email);
    await t.database.db.query("UPDATE users SET reset_token_expires_at = now() - interval '1 second' WHERE id = $1", [
      admin.userId,
    ]);
    const response = await anonymous().post('/api/auth/reset-password', { token, password: 'brand new password' });
    expect(response.body.code).toBe('invalid_reset_token');
  });
});

describe('token storage', () => {
  it('stores no plain refresh, reset or invitation token anywhere in the database', async () => {
    const admin = await createOrg(t);
    const rotated = (await refresh(admin.refreshToken)).body.refreshToken as string;
    await anonymous().post('/api/auth/forgot-password', { email: admin.email });
    const resetToken = await tokenFromOutbox(t, admin.email);
    const member = await createMember(t, admin);
    await anonymous().post('/api/auth/forgot-password', { email: member.email });
    const pendingReset = await tokenFromOutbox(t, member.email);
    const secrets = [admin.refreshToken, rotated, resetToken, member.refreshToken, pendingReset];

    const { rows: columns } = await t.database.db.query<{ table_name: string; column_name: string }>(
      `SELECT table_name, column_name FROM information_schema.columns
        WHERE table_schema = 'public' AND data_type IN ('text', 'character varying', 'json', 'jsonb')`,
    );
    expect(columns.length).toBeGreaterThan(10);
    for (const { table_name, column_name } of columns) {
      for (const secret of secrets) {
        const { rows } = await t.database.db.query<{ found: boolean }>(
          `SELECT EXISTS (SELECT 1 FROM "${table_name}" WHERE strpos("${column_name}"::text, $1) > 0) AS found`,
          [secret],
        );
        expect(rows[0]?.found, `${table_name}.${column_name} holds a plain token`).toBe(false);
      }
    }
    // What is stored is the lowercase hex SHA-256.
    expect(await sessionOf(rotated)).toBeDefined();
    const { rows } = await t.database.db.query('SELECT reset_token_hash FROM users WHERE id = $1', [member.userId]);
    expect(rows[0]).toEqual({ reset_token_hash: sha256Hex(pendingReset) });
  });
});
