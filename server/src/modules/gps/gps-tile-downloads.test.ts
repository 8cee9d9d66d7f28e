import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../../../test/helpers/app';
import { createMember, createOrg, type Member } from '../../../../test/helpers/factories';

let t: TestApp;
let admin: Member;
let other: Member;

beforeAll(async () => {
  t = await startTestApp();
  admin = await createOrg(t);
  other = await createOrg(t, 'Other organization');
});
afterAll(() => t.close());

const moscow = { west: 37.3, south: 55.5, east: 37.9, north: 55.95, minZoom: 8, maxZoom: 11 };

describe('gps: pre-downloading an area’s tiles', () => {
  it('allows an administrator an area from the organization’s own source, with its tile count', async () => {
    const none = await admin.client.post('/api/gps/tile-downloads', moscow);
    expect(none.status).toBe(409);
    expect(none.body.code).toBe('tile_source_not_configured');

    const source = { kind: 'pmtiles', url: 'https://tiles.example.org/region.pmtiles' };
    expect((await admin.client.patch('/api/gps/settings', { tileSource: source })).status).toBe(200);
    const plan = await admin.client.post('/api/gps/tile-downloads', moscow);
    expect(plan.status, JSON.stringify(plan.body)).toBe(200);
    // Zoom 8: 1×2, 9: 1×2, 10: 2×3, 11: 4×5 tiles.
    expect(plan.body).toEqual({ source, tileCount: 2 + 2 + 6 + 20, maxTiles: 50_000 });

    // Another organization has no source of its own: the first one's is not its.
    const foreign = await other.client.post('/api/gps/tile-downloads', moscow);
    expect(foreign.status).toBe(409);
    expect(foreign.body.code).toBe('tile_source_not_configured');
  });

  it('refuses public tile servers whose policies forbid bulk downloads', async () => {
    for (const url of [
      'https://tile.openstreetmap.org/{z}/{x}/{y}.png',
      'https://b.tile.openstreetmap.fr/{z}/{x}/{y}.png',
    ]) {
      await admin.client.patch('/api/gps/settings', { tileSource: { kind: 'raster', url } });
      const refused = await admin.client.post('/api/gps/tile-downloads', moscow);
      expect(refused.status, url).toBe(409);
      expect(refused.body.code).toBe('tile_download_forbidden');
      expect(refused.body.detail).toMatch(/usage policy forbids bulk downloads/);
    }
  });

  it('refuses an area of too many tiles and a box or zoom range turned around', async () => {
    await admin.client.patch('/api/gps/settings', {
      tileSource: { kind: 'raster', url: 'https://tiles.example.org/{z}/{x}/{y}.png' },
    });
    const large = await admin.client.post('/api/gps/tile-downloads', { ...moscow, minZoom: 8, maxZoom: 18 });
    expect(large.status).toBe(400);
    expect(large.body.code).toBe('tile_area_too_large');
    for (const wrong of [
      { ...moscow, west: 38, east: 37 },
      { ...moscow, south: 56, north: 55 },
      { ...moscow, minZoom: 12, maxZoom: 10 },
      { ...moscow, maxZoom: 25 },
    ]) {
      const refused = await admin.client.post('/api/gps/tile-downloads', wrong);
      expect(refused.status, JSON.stringify(wrong)).toBe(400);
      expect(refused.body.code).toBe('validation_failed');
    }
  });

  it('is for administrators only', async () => {
    const member = await createMember(t, admin, { name: 'Dispatcher' });
    await admin.client.put('/api/module-access', { users: [{ userId: member.userId, modules: ['gps'] }] });
    const refused = await member.client.post('/api/gps/tile-downloads', moscow);
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('forbidden');
  });
});
