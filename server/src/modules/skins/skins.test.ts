import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../../../test/helpers/app';
import { createMember, createOrg, type Member } from '../../../../test/helpers/factories';

let t: TestApp;
let admin: Member;
let member: Member;

beforeAll(async () => {
  t = await startTestApp();
  admin = await createOrg(t);
  member = await createMember(t, admin, { name: 'Member' });
});
afterAll(() => t.close());

const night = { mode: 'dark', colorPrimary: '#7c3aed', colorHeader: '#111827', borderRadius: 4, density: 'compact' };

describe('organization skins', () => {
  it('are defined by administrators, read by every member, refused with field errors when malformed', async () => {
    const created = await admin.client.post('/api/skins', { name: 'Night shift', tokens: night });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({ name: 'Night shift', tokens: night });
    const id = created.body.id as string;

    expect((await member.client.get('/api/skins')).body).toEqual({
      items: [expect.objectContaining({ id, name: 'Night shift', tokens: night })],
      chosenSkinId: null,
    });
    expect((await member.client.get(`/api/skins/${id}`)).body.tokens).toEqual(night);

    // Members may not define or change skins.
    expect((await member.client.post('/api/skins', { name: 'Mine', tokens: night })).status).toBe(403);
    expect((await member.client.patch(`/api/skins/${id}`, { name: 'Day' })).status).toBe(403);
    expect((await member.client.delete(`/api/skins/${id}`)).status).toBe(403);

    // A colour that is not #rrggbb, an unknown token, a size out of range: each said at its field.
    const bad = await admin.client.post('/api/skins', {
      name: 'Broken',
      tokens: { mode: 'dusk', colorPrimary: 'purple', fontSize: 40, shadow: true },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.errors.map((e: { pointer: string }) => e.pointer).sort()).toEqual([
      '#/tokens',
      '#/tokens/colorPrimary',
      '#/tokens/fontSize',
      '#/tokens/mode',
    ]);
    // Names are unique in the organization, case aside.
    const twin = await admin.client.post('/api/skins', { name: 'night SHIFT', tokens: night });
    expect(twin.status).toBe(409);
    expect(twin.body.errors[0].pointer).toBe('#/name');

    // A partial change keeps the rest.
    const renamed = await admin.client.patch(`/api/skins/${id}`, { name: 'Night' });
    expect(renamed.body).toMatchObject({ name: 'Night', tokens: night });
    const recoloured = await admin.client.patch(`/api/skins/${id}`, { tokens: { ...night, colorPrimary: '#0ea5e9' } });
    expect(recoloured.body).toMatchObject({ name: 'Night', tokens: { colorPrimary: '#0ea5e9' } });
    expect((await admin.client.get(`/api/skins/${id}`)).body.tokens.colorPrimary).toBe('#0ea5e9');
  });

  it('apply for the organization and per user; a deleted skin leaves both on the next one down', async () => {
    const org = await createOrg(t);
    const colleague = await createMember(t, org, { name: 'Colleague' });
    const house = (
      await org.client.post('/api/skins', { name: 'House', tokens: { mode: 'light', colorPrimary: '#16a34a' } })
    ).body.id as string;
    const own = (await org.client.post('/api/skins', { name: 'Own', tokens: night })).body.id as string;

    const set = await org.client.patch('/api/organization', { activeSkinId: house });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    expect(set.body.activeSkinId).toBe(house);
    expect((await colleague.client.get('/api/auth/me')).body.organization.activeSkinId).toBe(house);
    // Only administrators set it, and only to one of the organization's skins.
    expect((await colleague.client.patch('/api/organization', { activeSkinId: own })).status).toBe(403);
    const foreign = (await admin.client.get('/api/skins')).body.items[0].id as string;
    const refused = await org.client.patch('/api/organization', { activeSkinId: foreign });
    expect(refused.status).toBe(404);
    expect(refused.body.errors[0].pointer).toBe('#/activeSkinId');
    expect((await org.client.get('/api/organization')).body.activeSkinId).toBe(house);

    // Each member chooses their own; others keep the organization's.
    const chosen = await colleague.client.put('/api/skins/choice', { skinId: own });
    expect(chosen.status).toBe(200);
    expect(chosen.body.chosenSkinId).toBe(own);
    expect((await colleague.client.get('/api/skins')).body.chosenSkinId).toBe(own);
    expect((await org.client.get('/api/skins')).body.chosenSkinId).toBeNull();
    expect((await colleague.client.put('/api/skins/choice', { skinId: foreign })).status).toBe(404);
    expect((await colleague.client.get('/api/skins')).body.chosenSkinId).toBe(own);

    // The chosen skin deleted: the colleague is back on the organization's.
    expect((await org.client.delete(`/api/skins/${own}`)).status).toBe(204);
    expect((await colleague.client.get('/api/skins')).body.chosenSkinId).toBeNull();
    // The organization's deleted: the default look.
    expect((await org.client.delete(`/api/skins/${house}`)).status).toBe(204);
    expect((await colleague.client.get('/api/auth/me')).body.organization.activeSkinId).toBeNull();
    expect((await org.client.delete(`/api/skins/${house}`)).status).toBe(404);
    // Back to no choice at all.
    expect((await colleague.client.put('/api/skins/choice', { skinId: null })).body.chosenSkinId).toBeNull();
  });
});
