import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type ApiClient, apiClient, type Body } from '../../../../test/helpers/api';
import { startTestApp, type TestApp } from '../../../../test/helpers/app';
import { dropDatabaseNow } from '../../../../test/helpers/database';
import { createMember, createOrg, type Member } from '../../../../test/helpers/factories';
import { syncClients } from '../../../../test/helpers/sync-client';
import { encodeCursor } from '../../platform/http/cursor';

let t: TestApp;
let anonymous: ApiClient;
beforeAll(async () => {
  t = await startTestApp();
  anonymous = apiClient(t);
});
afterAll(() => t.close());

const WAIT = { timeout: 5_000, interval: 25 };

async function list(caller: Member, query = ''): Promise<{ items: Body[]; nextCursor: string | null }> {
  const response = await caller.client.get(`/api/error-logs${query}`);
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body;
}

/** Polls the list (recording happens after the response) until `ready` holds for its items. */
async function eventually(caller: Member, ready: (items: Body[]) => boolean, query = ''): Promise<Body[]> {
  return vi.waitFor(async () => {
    const { items } = await list(caller, query);
    if (!ready(items)) throw new Error(`not yet: ${JSON.stringify(items)}`);
    return items;
  }, WAIT);
}

const byPath = (items: Body[], wanted: string, method = 'GET') =>
  items.filter((item) => item.path === wanted && item.method === method);

async function rows(sql: string, params: unknown[] = []) {
  return (await t.database.db.query<Record<string, unknown>>(sql, params)).rows;
}

/** Sets when entries were seen, by path, so time filters and ordering are deterministic. */
async function seenAt(organizationId: string, times: Record<string, string>) {
  for (const [entryPath, at] of Object.entries(times)) {
    await t.database.db.query(
      'UPDATE error_logs SET first_seen_at = $3, last_seen_at = $3 WHERE organization_id = $1 AND path = $2',
      [organizationId, entryPath, at],
    );
  }
}

describe('recording', () => {
  it('records a 404 and a 400 of a signed-in user with code, message, user and organization', async () => {
    const admin = await createOrg(t);
    const missing = randomUUID();
    const notFound = await admin.client.get(`/api/users/${missing}`);
    expect(notFound.status).toBe(404);
    const invalid = await admin.client.get('/api/users/not-a-uuid?password=hunter2&token=s3cr3t');
    expect(invalid.status).toBe(400);

    const items = await eventually(admin, (entries) => entries.length === 2);
    expect(byPath(items, `/api/users/${missing}`)).toEqual([
      {
        id: expect.any(String),
        method: 'GET',
        path: `/api/users/${missing}`,
        status: 404,
        code: 'not_found',
        message: notFound.body.detail,
        requestId: notFound.headers.get('x-request-id'),
        userId: admin.userId,
        botId: null,
        count: 1,
        firstSeenAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        lastSeenAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      },
    ]);
    const [validation] = byPath(items, '/api/users/not-a-uuid');
    expect(validation).toMatchObject({
      status: 400,
      code: 'validation_failed',
      message: invalid.body.detail,
      requestId: invalid.headers.get('x-request-id'),
      userId: admin.userId,
      count: 1,
    });
    // The query string may hold secrets: it is never stored.
    expect(JSON.stringify(items)).not.toMatch(/hunter2|s3cr3t|password=/);
    const stored = await rows('SELECT organization_id, user_id FROM error_logs WHERE id = ANY($1::uuid[])', [
      items.map((item) => item.id),
    ]);
    expect(stored).toEqual([
      { organization_id: admin.organizationId, user_id: admin.userId },
      { organization_id: admin.organizationId, user_id: admin.userId },
    ]);
  });

  it('does not record 401s, health checks or the event stream', async () => {
    const admin = await createOrg(t);
    expect((await anonymous.get('/api/error-logs')).status).toBe(401);
    expect((await apiClient(t, 'not-a-jwt').get('/api/users')).status).toBe(401);
    const login = await anonymous.post('/api/auth/login', { email: 'nobody@example.org', password: 'wrong' });
    expect(login.status).toBe(401);
    // Any method on the health check, with or without a trailing slash: never recorded.
    expect((await admin.client.delete('/api/health')).status).toBe(405);
    expect((await anonymous.post('/api/health/')).status).toBe(405);
    // The event stream and the paths below it.
    expect((await admin.client.get('/api/events')).status).toBe(404);
    expect((await admin.client.get('/api/events/stream?lastEventId=7')).status).toBe(404);
    expect((await anonymous.get('/API/Events/')).status).toBe(404);
    // Sent last, recorded: a path that only starts like the event stream's is not the event stream.
    const marker = `/api/eventsfeed-${randomUUID()}`;
    expect((await anonymous.get(marker)).status).toBe(404);

    await vi.waitFor(async () => {
      expect(await rows('SELECT 1 FROM error_logs WHERE path = $1', [marker])).toHaveLength(1);
    }, WAIT);
    await sleep(150);
    const unwanted = await rows(
      `SELECT status, path FROM error_logs
        WHERE status = 401 OR lower(path) LIKE '/api/health%' OR lower(path) = '/api/events'
           OR lower(path) LIKE '/api/events/%'`,
    );
    expect(unwanted).toEqual([]);
  });

  it('keeps errors of requests with no known organization for the operator only', async () => {
    const admin = await createOrg(t);
    const unknown = `/api/no-such-route-${randomUUID()}`;
    expect((await admin.client.get(unknown)).status).toBe(404);
    const stored = await vi.waitFor(async () => {
      const found = await rows('SELECT organization_id, user_id, code FROM error_logs WHERE path = $1', [unknown]);
      expect(found).toHaveLength(1);
      return found;
    }, WAIT);
    // Unknown routes are never authenticated, so the organization is not known.
    expect(stored).toEqual([{ organization_id: null, user_id: null, code: 'not_found' }]);
    expect(byPath((await list(admin)).items, unknown)).toEqual([]);
  });

  it('records requests whose body was refused before any route ran (malformed JSON, too large)', async () => {
    const path = `/api/auth/login`;
    const requestId = `malformed-${randomUUID()}`;
    const response = await t.request(path, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-Request-Id': requestId },
      body: '{"email": ',
    });
    expect(response.status).toBe(400);
    const stored = await vi.waitFor(async () => {
      const found = await rows('SELECT status, code FROM error_logs WHERE request_id = $1', [requestId]);
      expect(found).toHaveLength(1);
      return found;
    }, WAIT);
    expect(stored).toEqual([{ status: 400, code: 'malformed_json' }]);
  });

  it('folds identical errors within 60 seconds into one entry with a count', async () => {
    const admin = await createOrg(t);
    const missing = randomUUID();
    const requestIds: (string | null)[] = [];
    for (let n = 0; n < 3; n++) {
      const response = await admin.client.get(`/api/users/${missing}`);
      expect(response.status).toBe(404);
      requestIds.push(response.headers.get('x-request-id'));
    }
    // Another path, another method, and the same method and path with another status: entries of their own.
    expect((await admin.client.get(`/api/users/${randomUUID()}`)).status).toBe(404);
    expect((await admin.client.patch(`/api/users/${missing}`, { name: 'Ghost' })).status).toBe(404);
    expect((await admin.client.patch(`/api/users/${missing}`, { locale: 'xx' })).status).toBe(400);

    const items = await eventually(
      admin,
      (entries) => entries.length === 4 && byPath(entries, `/api/users/${missing}`)[0]?.count === 3,
    );
    const [folded] = byPath(items, `/api/users/${missing}`);
    expect(folded).toMatchObject({ status: 404, code: 'not_found', count: 3 });
    expect(Date.parse(folded.lastSeenAt)).toBeGreaterThanOrEqual(Date.parse(folded.firstSeenAt));
    expect(requestIds).toContain(folded.requestId);
    const patches = byPath(items, `/api/users/${missing}`, 'PATCH');
    expect(patches.map((entry) => [entry.status, entry.code, entry.count]).sort()).toEqual([
      [400, 'validation_failed', 1],
      [404, 'not_found', 1],
    ]);
  });

  it('folds identical errors arriving at once into one entry', async () => {
    const admin = await createOrg(t);
    const missing = randomUUID();
    const responses = await Promise.all(Array.from({ length: 12 }, () => admin.client.get(`/api/roles/${missing}`)));
    expect(responses.map((response) => response.status)).toEqual(Array(12).fill(404));
    const items = await eventually(admin, (entries) => entries[0]?.count === 12);
    expect(items).toHaveLength(1);
  });

  it('starts a new entry when the identical error was first seen over 60 seconds ago', async () => {
    const admin = await createOrg(t);
    const url = `/api/users/${randomUUID()}`;
    await admin.client.get(url);
    await admin.client.get(url);
    const [old] = await eventually(admin, (entries) => entries[0]?.count === 2);
    // Still seen a moment ago, but first seen over a minute ago: the window is closed.
    await t.database.db.query("UPDATE error_logs SET first_seen_at = now() - interval '61 seconds' WHERE id = $1", [
      old.id,
    ]);
    await admin.client.get(url);
    await admin.client.get(url);
    const items = await eventually(admin, (entries) => entries.length === 2 && entries[0]?.count === 2);
    const [fresh, earlier] = items;
    expect(fresh.id).not.toBe(old.id);
    expect(earlier).toMatchObject({ id: old.id, count: 2 });
  });

  it('answers when recording fails, and logs it without crashing', async () => {
    const broken = await startTestApp();
    try {
      if (broken.database.engine === 'postgres') await dropDatabaseNow(broken.database);
      else await broken.database.db.close();
      expect((await broken.request('/api/nowhere')).status).toBe(404);
      await sleep(100);
      expect((await broken.request('/api/nowhere/else')).status).toBe(404);
    } finally {
      await broken.close();
    }
  });
});

describe('reading and deleting', () => {
  it('shows and deletes only the caller’s organization’s entries', async () => {
    const alpha = await createOrg(t, 'Alpha');
    const beta = await createOrg(t, 'Beta');
    expect((await alpha.client.get(`/api/roles/${randomUUID()}`)).status).toBe(404);
    const [alphaEntry] = await eventually(alpha, (entries) => entries.length === 1);
    expect((await beta.client.get(`/api/roles/${randomUUID()}`)).status).toBe(404);
    const betaItems = await eventually(beta, (entries) => entries.length === 1);
    expect(betaItems.map((item) => item.id)).not.toContain(alphaEntry.id);

    const byId = await beta.client.delete(`/api/error-logs?ids=${alphaEntry.id}`);
    expect(byId.body).toEqual({ deleted: 0 });
    const all = await beta.client.delete('/api/error-logs');
    expect(all.status).toBe(200);
    expect(all.body).toEqual({ deleted: 1 });
    expect((await list(beta)).items).toEqual([]);
    expect((await list(alpha)).items.map((item) => item.id)).toEqual([alphaEntry.id]);
  });

  it('refuses members who are not administrators, and records that', async () => {
    const admin = await createOrg(t);
    const member = await createMember(t, admin);
    const read = await member.client.get('/api/error-logs');
    expect(read.status).toBe(403);
    expect(read.body.code).toBe('forbidden');
    expect((await member.client.delete('/api/error-logs')).status).toBe(403);

    const items = await eventually(admin, (entries) => entries.length === 2);
    expect(items.map((item) => [item.method, item.path, item.status, item.code, item.userId]).sort()).toEqual([
      ['DELETE', '/api/error-logs', 403, 'forbidden', member.userId],
      ['GET', '/api/error-logs', 403, 'forbidden', member.userId],
    ]);
  });

  it('filters by status, code, method, path and time, newest first, page by page', async () => {
    const admin = await createOrg(t);
    const [u1, u2, r1, r2] = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
    await admin.client.get(`/api/users/${u1}`); // 404
    await admin.client.get(`/api/users/${u2}`); // 404
    await admin.client.get(`/api/roles/${r1}`); // 404
    await admin.client.get('/api/users/bad-id'); // 400
    await admin.client.patch(`/api/users/${u1}`, { locale: 'xx' }); // 400
    await admin.client.delete(`/api/roles/${r2}`); // 404
    await eventually(admin, (entries) => entries.length === 6);
    // Entries seen in the same microsecond are ordered by id, across a page boundary too.
    await seenAt(admin.organizationId, {
      [`/api/users/${u1}`]: '2024-03-01T10:00:00.000001Z', // the GET and the PATCH
      [`/api/users/${u2}`]: '2024-03-02T10:00:00.000001Z',
      [`/api/roles/${r1}`]: '2024-03-03T10:00:00.123456Z',
      '/api/users/bad-id': '2024-03-03T10:00:00.123456Z',
      [`/api/roles/${r2}`]: '2024-03-05T10:00:00.000001Z',
    });
    const all = (await list(admin)).items;
    expect(all).toHaveLength(6);
    const keys = all.map((item) => [Date.parse(item.lastSeenAt), item.id]);
    const newestFirst = (a: (string | number)[], b: (string | number)[]) =>
      (b[0] as number) - (a[0] as number) || (String(a[1]) < String(b[1]) ? 1 : -1);
    expect(keys).toEqual([...keys].sort(newestFirst));

    const found = async (query: string) =>
      (await list(admin, query)).items.map((item) => `${item.method} ${item.path} ${item.status}`).sort();
    expect(await found('?status=400')).toEqual([`PATCH /api/users/${u1} 400`, 'GET /api/users/bad-id 400'].sort());
    expect(await found('?code=not_found')).toHaveLength(4);
    expect(await found('?method=delete')).toEqual([`DELETE /api/roles/${r2} 404`]);
    expect(await found('?path=ROLES')).toEqual([`DELETE /api/roles/${r2} 404`, `GET /api/roles/${r1} 404`]);
    expect(await found('?status=404&path=%2Fapi%2Fusers')).toEqual(
      [`GET /api/users/${u1} 404`, `GET /api/users/${u2} 404`].sort(),
    );
    expect(await found('?since=2024-03-03T10:00:00.123456Z&until=2024-03-05T10:00:00.000001Z')).toEqual(
      ['GET /api/users/bad-id 400', `GET /api/roles/${r1} 404`].sort(),
    );
    expect(await found('?until=2024-03-02T10:00:00%2B00:00')).toEqual([
      `GET /api/users/${u1} 404`,
      `PATCH /api/users/${u1} 400`,
    ]);

    const pages: Body[][] = [];
    let cursor: string | null = null;
    do {
      const page: { items: Body[]; nextCursor: string | null } = await list(
        admin,
        `?limit=2${cursor ? `&cursor=${cursor}` : ''}`,
      );
      pages.push(page.items);
      cursor = page.nextCursor;
    } while (cursor && pages.length < 10);
    expect(pages.map((page) => page.length)).toEqual([2, 2, 2]);
    expect(pages.flat().map((item) => item.id)).toEqual(all.map((item) => item.id));
    const filteredPage = await list(admin, '?code=not_found&limit=3');
    expect(filteredPage.items).toHaveLength(3);
    const rest = await list(admin, `?code=not_found&limit=3&cursor=${filteredPage.nextCursor}`);
    expect(rest).toMatchObject({ items: [expect.objectContaining({ code: 'not_found' })], nextCursor: null });
  });

  it('answers bad filters with 400 problems', async () => {
    const admin = await createOrg(t);
    const listQueries = [
      '?status=abc',
      '?status=200',
      '?since=yesterday',
      '?until=2024-13-01T00:00:00Z',
      '?limit=0',
      '?limit=201',
      '?cursor=garbage',
      `?cursor=${encodeCursor(['Ann', randomUUID()])}`,
      '?method=GET%20X',
    ];
    for (const query of listQueries) {
      const response = await admin.client.get(`/api/error-logs${query}`);
      expect(response.status, query).toBe(400);
      expect(response.body.code, query).toBe('validation_failed');
    }
    const deleteQueries = [
      '?ids=nope',
      `?ids=${randomUUID()},x`,
      '?before=tomorrow',
      `?ids=${randomUUID()}&before=2024-01-01T00:00:00Z`,
    ];
    for (const query of deleteQueries) {
      const response = await admin.client.delete(`/api/error-logs${query}`);
      expect(response.status, query).toBe(400);
      expect(response.body.code, query).toBe('validation_failed');
    }
  });

  it('deletes the listed entries, the older ones, or all', async () => {
    const admin = await createOrg(t);
    const urls = Array.from({ length: 4 }, () => `/api/users/${randomUUID()}`) as [string, string, string, string];
    for (const url of urls) await admin.client.get(url);
    await eventually(admin, (entries) => entries.length === 4);
    await seenAt(admin.organizationId, {
      [urls[0]]: '2024-01-01T00:00:00Z',
      [urls[1]]: '2024-01-02T00:00:00Z',
      [urls[2]]: '2024-01-03T00:00:00Z',
      [urls[3]]: '2024-01-04T00:00:00Z',
    });
    const items = (await list(admin)).items;
    const idOf = (url: string) => byPath(items, url)[0]?.id as string;

    const listed = await admin.client.delete(`/api/error-logs?ids=${idOf(urls[3])},${idOf(urls[0])}`);
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual({ deleted: 2 });
    expect((await list(admin)).items.map((item) => item.path)).toEqual([urls[2], urls[1]]);

    const older = await admin.client.delete('/api/error-logs?before=2024-01-03T00:00:00Z');
    expect(older.body).toEqual({ deleted: 1 });
    expect((await list(admin)).items.map((item) => item.path)).toEqual([urls[2]]);

    const all = await admin.client.delete('/api/error-logs');
    expect(all.body).toEqual({ deleted: 1 });
    expect((await list(admin)).items).toEqual([]);
  });
});

describe('sync failures', () => {
  const replica = syncClients(() => t);
  const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

  it('records a refused sync message with the request id its acknowledgement carried', async () => {
    const admin = await createOrg(t);
    const client = await replica(admin);
    // Not a push at all, then a push to a collection replicas only read.
    const malformed = await client.socket.emitWithAck('sync:push', { collection: 'tasks', rows: 'all of them' });
    expect(malformed).toMatchObject({ ok: false, problem: { status: 400, code: 'validation_failed' } });
    const readOnly = await client.push('users', [
      { assumedMasterState: null, newDocumentState: { id: randomUUID(), _deleted: false } },
    ]);
    expect(readOnly).toMatchObject({ ok: false, problem: { status: 403, code: 'forbidden' } });
    const ids = [malformed, readOnly].map((answer) => (answer.ok ? '' : String(answer.problem.requestId)));
    expect(ids.every((id) => UUID.test(id))).toBe(true);
    expect(new Set(ids).size).toBe(2);

    const items = await eventually(admin, (entries) => entries.length === 2);
    expect(
      items.map(({ method, path, status, code, requestId, userId }) => ({
        method,
        path,
        status,
        code,
        requestId,
        userId,
      })),
    ).toEqual([
      { method: 'PUSH', path: '/sync/users', status: 403, code: 'forbidden', requestId: ids[1], userId: admin.userId },
      {
        method: 'PUSH',
        path: '/sync/tasks',
        status: 400,
        code: 'validation_failed',
        requestId: ids[0],
        userId: admin.userId,
      },
    ]);
    // Found by the filters as any entry is.
    expect((await list(admin, '?method=push&path=sync')).items).toHaveLength(2);
  });

  it('records a sync message the server failed on, naming it only by its id to the replica', async () => {
    const admin = await createOrg(t);
    const form = (await admin.client.post('/api/forms', { name: 'Readings', fields: [{ name: 'Note', type: 'text' }] }))
      .body;
    const note = form.fields[0].id as string;
    // The database refuses one value: the push fails on the server, not on what it was sent.
    const constraint = `refuses_note_${randomUUID().slice(0, 8)}`;
    await t.database.db.query(
      `ALTER TABLE tasks ADD CONSTRAINT ${constraint} CHECK (fields->>'${note}' IS DISTINCT FROM 'Refused')`,
    );
    try {
      const client = await replica(admin);
      const answer = await client.push('tasks', [
        {
          assumedMasterState: null,
          newDocumentState: {
            id: randomUUID(),
            _deleted: false,
            formId: form.id,
            title: 'Gauge',
            fields: { [note]: 'Refused' },
          },
        },
      ]);
      expect(answer).toMatchObject({ ok: false, problem: { status: 500, code: 'internal_error' } });
      const requestId = answer.ok ? '' : String(answer.problem.requestId);
      expect(requestId).toMatch(UUID);
      expect(JSON.stringify(answer)).not.toContain(constraint);
      const [entry] = await eventually(admin, (entries) => entries.some((item) => item.status === 500));
      expect(entry).toMatchObject({
        method: 'PUSH',
        path: '/sync/tasks',
        status: 500,
        code: 'internal_error',
        requestId,
      });
    } finally {
      await t.database.db.query(`ALTER TABLE tasks DROP CONSTRAINT ${constraint}`);
    }
  });

  it('records nothing for a sync message that went through', async () => {
    const admin = await createOrg(t);
    const client = await replica(admin);
    const answer = await client.pull('tasks', null);
    expect(answer.ok).toBe(true);
    await admin.client.get(`/api/users/${randomUUID()}`);
    // The 404 is recorded; the pull before it is not.
    const items = await eventually(admin, (entries) => entries.length > 0);
    expect(items.map((item) => item.method)).toEqual(['GET']);
  });
});
