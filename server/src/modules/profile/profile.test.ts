import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../../../test/helpers/app';
import { createMember, createOrg, type Member } from '../../../../test/helpers/factories';

let t: TestApp;
let admin: Member;
let member: Member;
let colleague: Member;
beforeAll(async () => {
  t = await startTestApp();
  admin = await createOrg(t);
  member = await createMember(t, admin, { name: 'Member' });
  colleague = await createMember(t, admin, { name: 'Colleague' });
});
afterAll(() => t.close());

// biome-ignore lint/suspicious/noExplicitAny: test bodies are free-form.
async function createField(body: Record<string, unknown>): Promise<any> {
  const response = await admin.client.post('/api/profile-fields', { name: `Field ${randomUUID()}`, ...body });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body;
}

async function historyRows(userId: string, fieldId: string) {
  const { rows } = await t.database.db.query<{ value: string; actor_user_id: string | null }>(
    'SELECT value, actor_user_id FROM user_field_history WHERE user_id = $1 AND field_id = $2 ORDER BY recorded_at, id',
    [userId, fieldId],
  );
  return rows;
}

describe('profile field definitions', () => {
  it('lets only administrators define fields, of the form types plus history-number; every member lists them', async () => {
    expect((await member.client.post('/api/profile-fields', { name: 'Mine', type: 'text' })).status).toBe(403);
    const types = ['text', 'number', 'date', 'checkbox', 'select', 'history-number'];
    const created = [];
    for (const type of types) {
      created.push(await createField({ type, options: type === 'select' ? ['S', 'M', 'L'] : undefined }));
    }
    expect(created.map((f) => f.type)).toEqual(types);
    expect(created[4].options).toEqual(['S', 'M', 'L']);
    expect(created[0].options).toBeNull();

    const listed = await member.client.get('/api/profile-fields');
    expect(listed.status).toBe(200);
    const ids = listed.body.items.map((f: { id: string }) => f.id);
    expect(ids).toEqual(expect.arrayContaining(created.map((f) => f.id)));
    // In creation order.
    const positions = created.map((f) => ids.indexOf(f.id));
    expect(positions).toEqual([...positions].sort((x, y) => x - y));

    const noChoices = await admin.client.post('/api/profile-fields', { name: 'Size', type: 'select' });
    expect(noChoices.status).toBe(400);
    expect(noChoices.body.errors[0]).toMatchObject({ pointer: '#/options', code: 'options_required' });
    const userType = await admin.client.post('/api/profile-fields', { name: 'Boss', type: 'user' });
    expect(userType.status).toBe(400);
    expect(userType.body.code).toBe('validation_failed');
  });

  it('renames, re-chooses and deletes fields as an administrator only', async () => {
    const field = await createField({ type: 'select', options: ['A', 'B'] });
    expect((await member.client.patch(`/api/profile-fields/${field.id}`, { name: 'Hacked' })).status).toBe(403);
    expect((await member.client.delete(`/api/profile-fields/${field.id}`)).status).toBe(403);

    const edited = await admin.client.patch(`/api/profile-fields/${field.id}`, { name: 'Shirt', options: ['B', 'C'] });
    expect(edited.status).toBe(200);
    expect(edited.body).toMatchObject({ id: field.id, name: 'Shirt', type: 'select', options: ['B', 'C'] });
    const emptied = await admin.client.patch(`/api/profile-fields/${field.id}`, { options: [] });
    expect(emptied.body.errors[0]).toMatchObject({ pointer: '#/options', code: 'options_required' });

    expect((await admin.client.delete(`/api/profile-fields/${field.id}`)).status).toBe(204);
    const listed = await admin.client.get('/api/profile-fields');
    expect(listed.body.items.map((f: { id: string }) => f.id)).not.toContain(field.id);
    expect((await admin.client.patch(`/api/profile-fields/${field.id}`, { name: 'Back' })).status).toBe(404);
    expect((await admin.client.delete(`/api/profile-fields/${field.id}`)).status).toBe(404);
    expect((await admin.client.delete(`/api/profile-fields/${randomUUID()}`)).status).toBe(404);
  });

  it('lets the type change while the field has no values, then locks it (409 field_type_locked)', async () => {
    const field = await createField({ type: 'number' });
    const retyped = await admin.client.patch(`/api/profile-fields/${field.id}`, { type: 'select', options: ['x'] });
    expect(retyped.status).toBe(200);
    expect(retyped.body).toMatchObject({ type: 'select', options: ['x'] });
    const back = await admin.client.patch(`/api/profile-fields/${field.id}`, { type: 'history-number' });
    expect(back.body).toMatchObject({ type: 'history-number', options: null });

    expect((await member.client.put(`/api/users/${member.userId}/fields`, { [field.id]: 70 })).status).toBe(200);
    // Cleared, the value is gone but its history remains: the type stays locked.
    expect((await member.client.put(`/api/users/${member.userId}/fields`, { [field.id]: null })).status).toBe(200);
    const locked = await admin.client.patch(`/api/profile-fields/${field.id}`, { type: 'number' });
    expect(locked.status).toBe(409);
    expect(locked.body.code).toBe('field_type_locked');
    const renamed = await admin.client.patch(`/api/profile-fields/${field.id}`, {
      name: 'Weight',
      type: 'history-number',
    });
    expect(renamed.status).toBe(200);
    expect(renamed.body.name).toBe('Weight');
  });
});

describe('profile values', () => {
  it('lets users write their own values and administrators anyone’s; others get 403', async () => {
    const field = await createField({ type: 'text' });
    const own = await member.client.put(`/api/users/${member.userId}/fields`, { [field.id]: 'mine' });
    expect(own.status).toBe(200);
    expect(own.body.values[field.id]).toBe('mine');

    const foreign = await colleague.client.put(`/api/users/${member.userId}/fields`, { [field.id]: 'theirs' });
    expect(foreign.status).toBe(403);
    expect(foreign.body.code).toBe('forbidden');

    const byAdmin = await admin.client.put(`/api/users/${member.userId}/fields`, { [field.id]: 'set by admin' });
    expect(byAdmin.status).toBe(200);
    // Any member of the organization reads them.
    const read = await colleague.client.get(`/api/users/${member.userId}/fields`);
    expect(read.status).toBe(200);
    expect(read.body.values[field.id]).toBe('set by admin');

    const nobody = randomUUID();
    expect((await admin.client.get(`/api/users/${nobody}/fields`)).status).toBe(404);
    expect((await admin.client.put(`/api/users/${nobody}/fields`, { [field.id]: 'x' })).status).toBe(404);
  });

  it('validates values by type with errors at #/<fieldId>, writing nothing, and normalises numbers', async () => {
    const text = await createField({ type: 'text' });
    const number = await createField({ type: 'number' });
    const date = await createField({ type: 'date' });
    const checkbox = await createField({ type: 'checkbox' });
    const select = await createField({ type: 'select', options: ['Red', 'Green'] });
    const weight = await createField({ type: 'history-number' });
    const unknown = randomUUID();
    const client = colleague.client;
    const path = `/api/users/${colleague.userId}/fields`;

    const invalid = await client.put(path, {
      [text.id]: 12,
      [number.id]: 'twelve',
      [date.id]: '2026-02-30',
      [checkbox.id]: 'yes',
      [select.id]: 'Blue',
      [weight.id]: '1,234,567',
      [unknown]: 'x',
    });
    expect(invalid.status).toBe(400);
    expect(invalid.body.code).toBe('validation_failed');
    const byPointer = Object.fromEntries(
      invalid.body.errors.map((e: { pointer: string; code: string; location: string }) => [e.pointer, e.code]),
    );
    expect(byPointer).toEqual({
      [`#/${text.id}`]: 'invalid_type',
      [`#/${number.id}`]: 'not_a_number',
      [`#/${date.id}`]: 'invalid_date',
      [`#/${checkbox.id}`]: 'invalid_type',
      [`#/${select.id}`]: 'invalid_choice',
      [`#/${weight.id}`]: 'not_a_number',
      [`#/${unknown}`]: 'unknown_field',
    });
    expect(invalid.body.errors.every((e: { location: string }) => e.location === 'body')).toBe(true);
    expect((await client.get(path)).body.values).toEqual({});
    expect(await historyRows(colleague.userId, weight.id)).toEqual([]);

    const partlyValid = await client.put(path, { [number.id]: '5', [weight.id]: 'heavy' });
    expect(partlyValid.status).toBe(400);
    expect((await client.get(path)).body.values).toEqual({});

    const valid = await client.put(path, {
      [text.id]: 'Hello',
      [number.id]: '12 345 678 901 234 567 890,50',
      [date.id]: '2026-02-28',
      [checkbox.id]: false,
      [select.id]: 'Green',
      [weight.id]: 71.25,
    });
    expect(valid.status, JSON.stringify(valid.body)).toBe(200);
    expect(valid.body.values).toEqual({
      [text.id]: 'Hello',
      [number.id]: '12345678901234567890.5',
      [date.id]: '2026-02-28',
      [checkbox.id]: false,
      [select.id]: 'Green',
      [weight.id]: '71.25',
    });

    // Only listed fields change; null and '' clear.
    const cleared = await client.put(path, { [text.id]: null, [select.id]: '' });
    expect(cleared.body.values).toEqual({
      [number.id]: '12345678901234567890.5',
      [date.id]: '2026-02-28',
      [checkbox.id]: false,
      [weight.id]: '71.25',
    });

    // A deleted field's value is hidden and it takes no new values.
    await admin.client.delete(`/api/profile-fields/${date.id}`);
    expect((await client.get(path)).body.values).not.toHaveProperty(date.id);
    const toDeleted = await client.put(path, { [date.id]: '2026-03-01' });
    expect(toDeleted.body.errors[0]).toMatchObject({ pointer: `#/${date.id}`, code: 'unknown_field' });
  });

  it('appends a history row on every history-number write, the same value too, and none when clearing', async () => {
    const weight = await createField({ type: 'history-number' });
    const path = `/api/users/${member.userId}/fields`;
    expect((await member.client.put(path, { [weight.id]: 80 })).status).toBe(200);
    expect((await member.client.put(path, { [weight.id]: 80 })).status).toBe(200);
    expect((await member.client.put(path, { [weight.id]: '80,0' })).status).toBe(200);
    const byAdmin = await admin.client.put(path, { [weight.id]: '79.5' });
    expect(byAdmin.body.values[weight.id]).toBe('79.5');
    expect((await member.client.put(path, { [weight.id]: null })).status).toBe(200);
    expect((await member.client.get(path)).body.values).not.toHaveProperty(weight.id);

    expect(await historyRows(member.userId, weight.id)).toEqual([
      { value: '80', actor_user_id: member.userId },
      { value: '80', actor_user_id: member.userId },
      { value: '80', actor_user_id: member.userId },
      { value: '79.5', actor_user_id: admin.userId },
    ]);
    // A plain number field keeps no history.
    const plain = await createField({ type: 'number' });
    await member.client.put(path, { [plain.id]: 1 });
    expect(await historyRows(member.userId, plain.id)).toEqual([]);

    const history = await member.client.get(`/api/users/${member.userId}/field-history/${weight.id}?period=year`);
    expect(history.body.buckets).toHaveLength(1);
    expect(history.body.buckets[0]).toMatchObject({ average: '79.875', count: 4 });
  });

  it('never updates a history row', async () => {
    const weight = await createField({ type: 'history-number' });
    await member.client.put(`/api/users/${member.userId}/fields`, { [weight.id]: 90 });
    await expect(
      t.database.db.query('UPDATE user_field_history SET value = 1 WHERE field_id = $1', [weight.id]),
    ).rejects.toThrow(/append-only/);
    await expect(
      t.database.db.query('UPDATE user_field_history SET recorded_at = now() WHERE field_id = $1', [weight.id]),
    ).rejects.toThrow(/append-only/);
    expect(await historyRows(member.userId, weight.id)).toEqual([{ value: '90', actor_user_id: member.userId }]);
  });

  it('answers 404 for another organization’s users and refuses its fields as unknown', async () => {
    const field = await createField({ type: 'number' });
    const other = await createOrg(t);
    expect((await other.client.get(`/api/users/${member.userId}/fields`)).status).toBe(404);
    expect((await other.client.put(`/api/users/${member.userId}/fields`, {})).status).toBe(404);
    expect((await other.client.get(`/api/users/${member.userId}/field-history/${field.id}`)).status).toBe(404);
    expect((await other.client.patch(`/api/profile-fields/${field.id}`, { name: 'Taken' })).status).toBe(404);
    expect((await other.client.get('/api/profile-fields')).body.items).toEqual([]);
    const foreignField = await other.client.put(`/api/users/${other.userId}/fields`, { [field.id]: 1 });
    expect(foreignField.status).toBe(400);
    expect(foreignField.body.errors[0]).toMatchObject({ pointer: `#/${field.id}`, code: 'unknown_field' });
  });
});

describe('history-number field history', () => {
  let subject: Member;
  let weight: { id: string };

  // Each row: when it was recorded (UTC) and its value. Moscow is UTC+3 all year.
  const rows: [string, string][] = [
    ['2025-12-31T20:59:59Z', '21'], // Wed 2025-12-31 23:59:59 MSK: December, Q4 2025, 2025
    ['2025-12-31T21:00:00Z', '30'], // Thu 2026-01-01 00:00 MSK: January, Q1, 2026
    ['2026-01-01T00:30:00Z', '12'], // Thu 2026-01-01 03:30 MSK
    ['2026-03-31T20:59:00Z', '42'], // Tue 2026-03-31 23:59 MSK: March, Q1
    ['2026-03-31T21:30:00Z', '50'], // Wed 2026-04-01 00:30 MSK: April, Q2 (still March 31 in UTC)
    ['2026-04-15T12:00:00Z', '61'], // Wed 2026-04-15 15:00 MSK
    ['2026-04-19T20:30:00Z', '63'], // Sun 2026-04-19 23:30 MSK: week of Monday April 13
    ['2026-04-19T21:30:00Z', '1'], // Mon 2026-04-20 00:30 MSK: week of Monday April 20 (Sunday in UTC)
    ['2026-07-01T06:00:00Z', '7.5'], // Wed 2026-07-01 09:00 MSK: July, Q3
  ];

  beforeAll(async () => {
    subject = await createMember(t, admin, { name: 'Subject' });
    weight = await createField({ type: 'history-number' });
    const decoy = await createField({ type: 'history-number' });
    const insert = (userId: string, fieldId: string, at: string, value: string) =>
      t.database.db.query(
        `INSERT INTO user_field_history (id, organization_id, user_id, field_id, value, recorded_at)
         VALUES ($1, $2, $3, $4, $5::numeric, $6::timestamptz)`,
        [randomUUID(), admin.organizationId, userId, fieldId, value, at],
      );
    for (const [at, value] of rows) await insert(subject.userId, weight.id, at, value);
    // Values of another field and of another user stay out of the buckets.
    await insert(subject.userId, decoy.id, '2026-04-15T12:00:00Z', '1000');
    await insert(member.userId, weight.id, '2026-04-15T12:00:00Z', '1000');
  });

  const history = (period: string, extra = '') =>
    subject.client.get(`/api/users/${subject.userId}/field-history/${weight.id}?period=${period}${extra}`);

  it('averages by week, weeks starting on Monday at Moscow midnight', async () => {
    const response = await history('week');
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(response.body).toEqual({
      period: 'week',
      fieldId: weight.id,
      buckets: [
        { start: '2025-12-28T21:00:00.000Z', average: '21', count: 3 }, // (21 + 30 + 12) / 3
        { start: '2026-03-29T21:00:00.000Z', average: '46', count: 2 }, // (42 + 50) / 2
        { start: '2026-04-12T21:00:00.000Z', average: '62', count: 2 }, // (61 + 63) / 2
        { start: '2026-04-19T21:00:00.000Z', average: '1', count: 1 },
        { start: '2026-06-28T21:00:00.000Z', average: '7.5', count: 1 },
      ],
    });
  });

  it('averages by month in Moscow time', async () => {
    const response = await history('month');
    expect(response.body.buckets).toEqual([
      { start: '2025-11-30T21:00:00.000Z', average: '21', count: 1 },
      { start: '2025-12-31T21:00:00.000Z', average: '21', count: 2 }, // (30 + 12) / 2
      { start: '2026-02-28T21:00:00.000Z', average: '42', count: 1 },
      { start: '2026-03-31T21:00:00.000Z', average: '43.75', count: 4 }, // (50 + 61 + 63 + 1) / 4
      { start: '2026-06-30T21:00:00.000Z', average: '7.5', count: 1 },
    ]);
  });

  it('averages by quarter in Moscow time', async () => {
    const response = await history('quarter');
    expect(response.body.buckets).toEqual([
      { start: '2025-09-30T21:00:00.000Z', average: '21', count: 1 },
      { start: '2025-12-31T21:00:00.000Z', average: '28', count: 3 }, // (30 + 12 + 42) / 3
      { start: '2026-03-31T21:00:00.000Z', average: '43.75', count: 4 },
      { start: '2026-06-30T21:00:00.000Z', average: '7.5', count: 1 },
    ]);
  });

  it('averages by year in Moscow time', async () => {
    const response = await history('year');
    expect(response.body.buckets).toEqual([
      { start: '2024-12-31T21:00:00.000Z', average: '21', count: 1 },
      // (30 + 12 + 42 + 50 + 61 + 63 + 1 + 7.5) / 8 = 266.5 / 8
      { start: '2025-12-31T21:00:00.000Z', average: '33.3125', count: 8 },
    ]);
  });

  it('takes months when no period is given, and limits the values to from (inclusive) and to (exclusive)', async () => {
    const all = await subject.client.get(`/api/users/${subject.userId}/field-history/${weight.id}`);
    expect(all.body.period).toBe('month');
    expect(all.body.buckets).toHaveLength(5);
    const range = await history('month', '&from=2026-01-01T00:00:00%2B03:00&to=2026-04-01T00:00:00%2B03:00');
    expect(range.status, JSON.stringify(range.body)).toBe(200);
    expect(range.body.buckets).toEqual([
      { start: '2025-12-31T21:00:00.000Z', average: '21', count: 2 },
      { start: '2026-02-28T21:00:00.000Z', average: '42', count: 1 },
    ]);
    const backwards = await history('month', '&from=2026-04-01T00:00:00Z&to=2026-01-01T00:00:00Z');
    expect(backwards.status).toBe(400);
    expect(backwards.body.errors[0]).toMatchObject({ location: 'query', pointer: '#/to' });
  });

  it('refuses other periods with 400', async () => {
    for (const period of ['day', 'decade', 'WEEK']) {
      const response = await history(period);
      expect(response.status, period).toBe(400);
      expect(response.body.code).toBe('validation_failed');
      expect(response.body.errors[0]).toMatchObject({ location: 'query', pointer: '#/period' });
    }
  });

  it('is readable by the user and administrators only', async () => {
    const path = `/api/users/${subject.userId}/field-history/${weight.id}?period=year`;
    expect((await admin.client.get(path)).status).toBe(200);
    const other = await colleague.client.get(path);
    expect(other.status).toBe(403);
    expect(other.body.code).toBe('forbidden');
  });

  it('refuses fields that are not history-number (400), and unknown users and fields (404)', async () => {
    const plain = await createField({ type: 'number' });
    const notHistory = await subject.client.get(`/api/users/${subject.userId}/field-history/${plain.id}`);
    expect(notHistory.status).toBe(400);
    expect(notHistory.body.errors[0]).toMatchObject({
      location: 'params',
      pointer: '#/fieldId',
      code: 'not_history_number',
    });
    const unknownField = await subject.client.get(`/api/users/${subject.userId}/field-history/${randomUUID()}`);
    expect(unknownField.status).toBe(404);
    const unknownUser = await admin.client.get(`/api/users/${randomUUID()}/field-history/${weight.id}`);
    expect(unknownUser.status).toBe(404);
  });
});
