import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../../../test/helpers/app';
import { createOrg, type Member } from '../../../../test/helpers/factories';

let t: TestApp;
let admin: Member;

beforeAll(async () => {
  t = await startTestApp();
  admin = await createOrg(t);
});
afterAll(() => t.close());

const directives = async () => {
  const policy = (await t.request('/')).headers.get('content-security-policy') ?? '';
  return Object.fromEntries(
    policy.split(';').map((part) => {
      const [name, ...values] = part.trim().split(/\s+/);
      return [name, values];
    }),
  ) as Record<string, string[]>;
};

describe('gps: the map’s tile source', () => {
  it('keeps the organization’s tile source, and the pages may then read that origin and run blob workers, nothing wider', async () => {
    expect((await directives())['connect-src']?.every((value) => value === "'self'")).toBe(true);
    const source = { kind: 'raster', url: 'https://tiles.example.org/osm/{z}/{x}/{y}.png' };
    const saved = await admin.client.patch('/api/gps/settings', { tileSource: source });
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);
    expect((await admin.client.get('/api/gps/settings')).body.tileSource).toEqual(source);
    const policy = await directives();
    expect(policy['connect-src']).toContain('https://tiles.example.org');
    expect(policy['connect-src']?.filter((value) => value !== "'self'")).toEqual(['https://tiles.example.org']);
    expect(policy['worker-src']).toEqual(["'self'", 'blob:']);
    expect(policy['script-src']).toEqual(["'self'"]);
  });

  it('refuses a tile source that is not an http(s) address, naming the field', async () => {
    const refused = await admin.client.patch('/api/gps/settings', {
      tileSource: { kind: 'pmtiles', url: 'file:///etc/passwd' },
    });
    expect(refused.status).toBe(400);
    expect(JSON.stringify(refused.body)).toContain('tileSource');
  });
});
