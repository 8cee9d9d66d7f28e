import { afterEach, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../../../test/helpers/app';
import { dropDatabaseNow, latestMigration, testEngine } from '../../../../test/helpers/database';
import { readJson } from '../../../../test/helpers/http';

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

describe('GET /api/health', () => {
  it('answers 200 with the database engine and schema version while the database answers', async () => {
    t = await startTestApp();
    const response = await t.request('/api/health');
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    const body = await readJson(response);
    expect(body).toMatchObject({
      status: 'ok',
      version: expect.stringMatching(/^\d+\.\d+\.\d+/),
      database: { status: 'up', engine: testEngine(), schemaVersion: await latestMigration() },
    });
    // No Redis configured: nothing said of it.
    expect(body.redis).toBeUndefined();
  });

  it('answers 503 when the database is gone', async () => {
    t = await startTestApp();
    if (t.database.engine === 'postgres') await dropDatabaseNow(t.database);
    else await t.database.db.close();
    const response = await t.request('/api/health');
    expect(response.status).toBe(503);
    expect(await readJson(response)).toMatchObject({ status: 'degraded', database: { status: 'down' } });
    const again = await t.request('/api/health');
    expect(again.status).toBe(503);
  });
});
