import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../../../test/helpers/app';
import { createOrg, type Member } from '../../../../test/helpers/factories';

/** A small deterministic generator (mulberry32), so the corpus is the same on every run. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let x = state;
    x = Math.imul(x ^ (x >>> 15), x | 1);
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
    return ((x ^ (x >>> 14)) >>> 0) / 4_294_967_296;
  };
}

const WORDS = [
  'насос',
  'клапан',
  'фильтр',
  'ремонт',
  'замена',
  'осмотр',
  'котёл',
  'труба',
  'утечка',
  'счётчик',
  'датчик',
  'монтаж',
  'ёмкость',
  'щит',
  'pump',
  'valve',
  'filter',
  'repair',
  'replace',
  'inspection',
  'boiler',
  'pipe',
  'leak',
  'meter',
  'sensor',
  'install',
];
/** Rare tokens holding LIKE's special characters, which the search must match literally. */
const SPECIAL = ['100%', 'скидка_50', 'file_name.txt', 'C:\\temp', 'x%y'];

function corpus(seed: number, count: number): { title: string; description: string }[] {
  const next = random(seed);
  const pick = <T>(list: readonly T[]) => list[Math.floor(next() * list.length)] as T;
  const word = () => {
    const base = next() < 0.06 ? pick(SPECIAL) : pick(WORDS);
    const casing = next();
    if (casing < 0.5) return base;
    if (casing < 0.8) return base.charAt(0).toUpperCase() + base.slice(1);
    return base.toUpperCase();
  };
  const words = (min: number, max: number) =>
    Array.from({ length: min + Math.floor(next() * (max - min + 1)) }, word).join(' ');
  return Array.from({ length: count }, () => ({ title: words(2, 4), description: next() < 0.2 ? '' : words(1, 7) }));
}

let t: TestApp;
let admin: Member;
let other: Member;
let ownIds: Set<string>;
let otherIds: Set<string>;

async function createAll(member: Member, tasks: { title: string; description: string }[]): Promise<string[]> {
  const form = await member.client.post('/api/forms', { name: 'Заявки', fields: [] });
  expect(form.status, JSON.stringify(form.body)).toBe(201);
  const ids: string[] = [];
  for (let start = 0; start < tasks.length; start += 100) {
    const response = await member.client.post(`/api/forms/${form.body.id}/tasks/batch`, {
      tasks: tasks.slice(start, start + 100),
    });
    expect(response.status, JSON.stringify(response.body).slice(0, 500)).toBe(201);
    ids.push(...response.body.items.map((task: { id: string }) => task.id));
  }
  return ids;
}

/** The exact LIKE pattern for "contains `text`": \, % and _ escaped (backslash is LIKE's escape). */
const containsPattern = (text: string) => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

const WHERE = 'organization_id = $1 AND deleted_at IS NULL AND (title ILIKE $2 OR description ILIKE $2)';

async function expectedIds(organizationId: string, text: string): Promise<string[]> {
  const { rows } = await t.database.db.query<{ id: string }>(`SELECT id FROM tasks WHERE ${WHERE}`, [
    organizationId,
    containsPattern(text),
  ]);
  return rows.map((row) => row.id).sort();
}

async function search(member: Member, q: string, limit = 100) {
  const response = await member.client.get(`/api/tasks/search?q=${encodeURIComponent(q)}&limit=${limit}`);
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body.items as { id: string; title: string; description: string }[];
}

const EXACT = 'Насос протекает';

beforeAll(async () => {
  t = await startTestApp();
  admin = await createOrg(t);
  other = await createOrg(t);
  const tasks = corpus(20240611, 300);
  // A title and two longer ones containing it, for the ranking check.
  tasks[40] = { title: 'Старый насос протекает', description: '' };
  tasks[150] = { title: EXACT, description: 'срочно' };
  tasks[260] = { title: 'Насос протекает снова', description: 'pump leak' };
  const own = await createAll(admin, tasks);
  // Deleted tasks are not found.
  for (const id of [own[1], own[2], own[3]]) {
    expect((await admin.client.delete(`/api/tasks/${id}`)).status).toBe(204);
  }
  ownIds = new Set(own.slice(4).concat(own[0] as string));
  // Another organization holds the same words.
  otherIds = new Set(await createAll(other, corpus(7, 100)));
}, 120_000);
afterAll(() => t.close());

const QUERIES = [
  'насос', // Cyrillic
  'НАСОС', // Cyrillic, other case
  'PuMp', // mixed case
  'ЁМК', // ё folds like any letter
  'котёл', // ё inside a word
  'Щ', // one character
  'lv', // two characters
  '%', // LIKE's wildcards, literally
  '_',
  '0%',
  'E_Name', // mixed case around a literal _
  'C:\\temp', // backslash, literally
  'x%Y',
  'valve leak', // across words
  '  ремонт ', // trimmed
  'zzz', // nothing
];

describe('task search', () => {
  it('finds exactly the tasks whose title or description contains the text, any case', async () => {
    for (const q of QUERIES) {
      const expected = await expectedIds(admin.organizationId, q.trim());
      expect(expected.length, `"${q}" must match at most one page`).toBeLessThanOrEqual(100);
      if (q !== 'zzz') expect(expected.length, `"${q}" matches nothing in the corpus`).toBeGreaterThan(0);
      const found = await search(admin, q);
      expect(found.map((task) => task.id).sort(), `search for "${q}" (expected ${expected.length})`).toEqual(expected);
      for (const task of found) expect(ownIds.has(task.id), `"${q}" found a task not of the corpus`).toBe(true);
    }
  });

  it('is case-insensitive for Cyrillic and Latin', async () => {
    const ids = async (q: string) => (await search(admin, q)).map((task) => task.id).sort();
    expect(await ids('НАСОС')).toEqual(await ids('насос'));
    expect(await ids('Насос')).toEqual(await ids('насос'));
    expect(await ids('PUMP')).toEqual(await ids('pump'));
    expect(await ids('ёмкость')).toEqual(await ids('ЁМКОСТЬ'));
    // Upper-case-only and lower-case-only spellings are both in the corpus and both found.
    const found = await search(admin, 'насос');
    expect(found.some((task) => `${task.title} ${task.description}`.includes('НАСОС'))).toBe(true);
    expect(found.some((task) => `${task.title} ${task.description}`.includes('насос'))).toBe(true);
  });

  it('matches % and _ literally, not as wildcards', async () => {
    for (const task of await search(admin, '%')) expect(`${task.title} ${task.description}`).toContain('%');
    for (const task of await search(admin, '_')) expect(`${task.title} ${task.description}`).toContain('_');
    expect((await expectedIds(admin.organizationId, '%')).length).toBeLessThan(ownIds.size);
  });

  it('never returns another organization’s tasks', async () => {
    for (const q of QUERIES) {
      const mine = await search(admin, q);
      expect(mine.filter((task) => otherIds.has(task.id))).toEqual([]);
      const theirs = await search(other, q);
      expect(
        theirs.every((task) => otherIds.has(task.id)),
        `"${q}" as the other organization`,
      ).toBe(true);
      expect(theirs.map((task) => task.id).sort()).toEqual(await expectedIds(other.organizationId, q.trim()));
    }
  });

  it('puts the exact title first', async () => {
    for (const q of [EXACT, EXACT.toLowerCase(), EXACT.toUpperCase()]) {
      const found = await search(admin, q);
      expect(found.length).toBeGreaterThanOrEqual(3);
      expect(found[0]?.title, `"${q}"`).toBe(EXACT);
    }
  });

  it('honours the limit and refuses an empty query', async () => {
    expect(await search(admin, 'насос', 5)).toHaveLength(5);
    expect((await admin.client.get('/api/tasks/search?q=%20%20')).status).toBe(400);
    expect((await admin.client.get('/api/tasks/search')).status).toBe(400);
  });

  it('uses the trigram indexes of title and description', async () => {
    // On 300 rows the organization's b-tree index stays the cheaper plan even with seqscan off (a GIN
    // trigram scan has a fixed cost of ~100 per index), so the plan is taken at a realistic volume:
    // 20 000 more tasks of the organization, added and analysed in a transaction that is rolled back.
    class RolledBack extends Error {
      constructor(readonly plan: string) {
        super('rolled back on purpose');
      }
    }
    const plan = await t.database.db
      .transaction(async (tx) => {
        await tx.query(
          `INSERT INTO tasks (id, organization_id, form_id, status_id, title, description)
           SELECT gen_random_uuid(), organization_id, form_id, status_id, 'Filler ' || n, 'Routine entry ' || n
             FROM (SELECT organization_id, form_id, status_id FROM tasks WHERE organization_id = $1 LIMIT 1) one,
                  generate_series(1, 20000) AS n`,
          [admin.organizationId],
        );
        // The new rows sit in the GIN indexes' pending lists until a (auto)vacuum; merge them now.
        await tx.query(
          "SELECT gin_clean_pending_list('tasks_title_trgm_idx'), gin_clean_pending_list('tasks_description_trgm_idx')",
        );
        await tx.query('ANALYZE tasks');
        await tx.query('SET LOCAL enable_seqscan = off');
        const { rows } = await tx.query<Record<string, string>>(`EXPLAIN SELECT id FROM tasks WHERE ${WHERE}`, [
          admin.organizationId,
          containsPattern('насос'),
        ]);
        throw new RolledBack(rows.map((row) => Object.values(row).join(' ')).join('\n'));
      })
      .catch((error: unknown) => {
        if (error instanceof RolledBack) return error.plan;
        throw error;
      });
    expect(plan).toContain('tasks_title_trgm_idx');
    expect(plan).toContain('tasks_description_trgm_idx');
    expect(await expectedIds(admin.organizationId, 'Filler')).toEqual([]);
  });
});
