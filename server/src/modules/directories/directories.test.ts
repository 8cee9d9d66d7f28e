import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../../../test/helpers/app';
import {
  createForm,
  createMember,
  createOrg,
  createTask,
  type Member,
  treeShape,
} from '../../../../test/helpers/factories';

let t: TestApp;
let admin: Member;
beforeAll(async () => {
  t = await startTestApp();
  admin = await createOrg(t);
});
afterAll(() => t.close());

async function directory(body: Record<string, unknown> = {}) {
  const response = await admin.client.post('/api/directories', {
    name: 'Places',
    columns: [{ name: 'Name' }, { name: 'Code' }, { name: 'Region' }, { name: 'Capacity', type: 'number' }],
    ...body,
  });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body as { id: string };
}

async function row(
  directoryId: string,
  cells: unknown[],
  parentId: string | null = null,
  extra: Record<string, unknown> = {},
) {
  const response = await admin.client.post(`/api/directories/${directoryId}/rows`, { cells, parentId, ...extra });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body as { id: string; position: number; cells: unknown[] };
}

async function tree(directoryId: string, query = '') {
  const response = await admin.client.get(`/api/directories/${directoryId}/rows/tree${query}`);
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body;
}

describe('row trees', () => {
  it('builds a 4-level tree, moves rows by drag and drop, and reads it back', async () => {
    const d = await directory();
    const russia = await row(d.id, ['Russia', 'RU']);
    const center = await row(d.id, ['Central', 'C'], russia.id);
    const moscow = await row(d.id, ['Moscow', 'MSK'], center.id);
    const tverskoy = await row(d.id, ['Tverskoy', 'TV'], moscow.id);
    const north = await row(d.id, ['North-West', 'NW'], russia.id);
    const spb = await row(d.id, ['Saint Petersburg', 'SPB'], north.id);
    const body = await tree(d.id);
    expect(body.displayColumnIndex).toBe(0);
    expect(treeShape(body.nodes)).toEqual([
      [
        'Russia',
        [
          ['Central', [['Moscow', ['Tverskoy']]]],
          ['North-West', ['Saint Petersburg']],
        ],
      ],
    ]);
    expect(body.nodes[0]).toMatchObject({ kind: 'row', id: russia.id, rowId: russia.id });

    // Drag Moscow (with its subtree) under North-West, before Saint Petersburg.
    const moved = await admin.client.patch(`/api/directories/${d.id}/rows/${moscow.id}/move`, {
      parentId: north.id,
      position: 0,
    });
    expect(moved.status).toBe(200);
    expect(moved.body).toMatchObject({ parentId: north.id, position: 0 });
    expect(treeShape((await tree(d.id)).nodes)).toEqual([
      ['Russia', ['Central', ['North-West', [['Moscow', ['Tverskoy']], 'Saint Petersburg']]]],
    ]);
    // Reorder among siblings, and move to the root.
    await admin.client.patch(`/api/directories/${d.id}/rows/${moscow.id}/move`, { parentId: north.id, position: 5 });
    await admin.client.patch(`/api/directories/${d.id}/rows/${tverskoy.id}/move`, { parentId: null, position: 0 });
    expect(treeShape((await tree(d.id)).nodes)).toEqual([
      'Tverskoy',
      ['Russia', ['Central', ['North-West', ['Saint Petersburg', 'Moscow']]]],
    ]);
    expect(spb.id).toBeDefined();
  });

  it('refuses a move that would make a cycle or cross directories, changing nothing', async () => {
    const d = await directory();
    const a = await row(d.id, ['A']);
    const b = await row(d.id, ['B'], a.id);
    const c = await row(d.id, ['C'], b.id);
    const cycle = await admin.client.patch(`/api/directories/${d.id}/rows/${a.id}/move`, {
      parentId: c.id,
      position: 0,
    });
    expect(cycle.status).toBe(409);
    expect(cycle.body.code).toBe('tree_cycle');
    const self = await admin.client.patch(`/api/directories/${d.id}/rows/${a.id}/move`, {
      parentId: a.id,
      position: 0,
    });
    expect(self.body.code).toBe('tree_cycle');
    const other = await directory({ name: 'Other' });
    const foreign = await row(other.id, ['F']);
    const cross = await admin.client.patch(`/api/directories/${d.id}/rows/${a.id}/move`, {
      parentId: foreign.id,
      position: 0,
    });
    expect(cross.status).toBe(409);
    expect(cross.body.code).toBe('cross_directory');
    expect(treeShape((await tree(d.id)).nodes)).toEqual([['A', [['B', ['C']]]]]);
  });

  it('refuses one of two moves made at once that together would make a cycle: both rows stay in the tree', async () => {
    const d = await directory();
    // A few rounds: requests that truly overlap are up to the scheduler.
    for (let round = 0; round < 4; round++) {
      const a = await row(d.id, [`A${round}`]);
      const b = await row(d.id, [`B${round}`]);
      const answers = await Promise.all([
        admin.client.patch(`/api/directories/${d.id}/rows/${a.id}/move`, { parentId: b.id, position: 0 }),
        admin.client.patch(`/api/directories/${d.id}/rows/${b.id}/move`, { parentId: a.id, position: 0 }),
      ]);
      expect(answers.map((answer) => answer.status).sort()).toEqual([200, 409]);
      expect(answers.find((answer) => answer.status === 409)?.body.code).toBe('tree_cycle');
    }
    const labels = JSON.stringify(treeShape((await tree(d.id)).nodes));
    for (let round = 0; round < 4; round++) expect(labels).toContain(`A${round}`);
    for (let round = 0; round < 4; round++) expect(labels).toContain(`B${round}`);
  });

  it('groups rows by a column’s values in column-value mode, labelled by the display column', async () => {
    const d = await directory({ tree_display_column_index: 1 });
    await row(d.id, ['Moscow', 'MSK', 'Center']);
    await row(d.id, ['Tula', 'TUL', 'Center']);
    await row(d.id, ['Murmansk', 'MUR', 'North']);
    await row(d.id, ['Nowhere', 'NOW', null]);
    const body = await tree(d.id, '?treeColumnIndex=2');
    expect(body).toMatchObject({ displayColumnIndex: 1, treeColumnIndex: 2 });
    expect(body.nodes.map((n: { kind: string; value: string | null }) => [n.kind, n.value])).toEqual([
      ['column_value', 'Center'],
      ['column_value', 'North'],
      ['column_value', null],
    ]);
    expect(body.nodes[0].children.map((n: { kind: string; label: string }) => [n.kind, n.label])).toEqual([
      ['row', 'MSK'],
      ['row', 'TUL'],
    ]);
    expect((await admin.client.get(`/api/directories/${d.id}/rows/tree?treeColumnIndex=9`)).status).toBe(400);
    // A directory that groups by default still answers its parent-row tree when asked for `none`.
    await admin.client.patch(`/api/directories/${d.id}`, { treeColumnIndex: 2 });
    expect((await tree(d.id)).treeColumnIndex).toBe(2);
    const plain = await tree(d.id, '?treeColumnIndex=none');
    expect(plain.treeColumnIndex).toBeNull();
    expect(plain.nodes.map((n: { kind: string; label: string }) => [n.kind, n.label])).toEqual([
      ['row', 'MSK'],
      ['row', 'TUL'],
      ['row', 'MUR'],
      ['row', 'NOW'],
    ]);
    expect((await admin.client.get(`/api/directories/${d.id}/rows/tree?treeColumnIndex=all`)).status).toBe(400);
  });

  it('deletes a row: its children move up in its place', async () => {
    const d = await directory();
    const a = await row(d.id, ['A']);
    const b = await row(d.id, ['B'], a.id);
    await row(d.id, ['B1'], b.id);
    await row(d.id, ['B2'], b.id);
    await row(d.id, ['C'], a.id);
    expect((await admin.client.delete(`/api/directories/${d.id}/rows/${b.id}`)).status).toBe(204);
    expect(treeShape((await tree(d.id)).nodes)).toEqual([['A', ['B1', 'B2', 'C']]]);
  });

  it('restores a deleted row in its place with the children its deletion moved up, for any member', async () => {
    const d = await directory();
    const a = await row(d.id, ['A']);
    await row(d.id, ['Z'], a.id);
    const b = await row(d.id, ['B'], a.id);
    await row(d.id, ['B1'], b.id);
    const b2 = await row(d.id, ['B2'], b.id);
    await row(d.id, ['C'], a.id);
    expect((await admin.client.delete(`/api/directories/${d.id}/rows/${b.id}`)).status).toBe(204);
    // One moved child is moved away meanwhile: it stays where the user put it.
    const moved = await admin.client.patch(`/api/directories/${d.id}/rows/${b2.id}/move`, {
      parentId: null,
      position: 0,
    });
    expect(moved.status, JSON.stringify(moved.body)).toBe(200);
    const member = await createMember(t, admin);
    const restored = await member.client.post(`/api/directories/${d.id}/rows/${b.id}/restore`, {});
    expect(restored.status, JSON.stringify(restored.body)).toBe(200);
    expect(restored.body).toMatchObject({ id: b.id, parentId: a.id, cells: ['B', null, null, null] });
    expect(treeShape((await tree(d.id)).nodes)).toEqual(['B2', ['A', ['Z', ['B', ['B1']], 'C']]]);

    // Nothing left to undo: the row is answered as it is, the tree unchanged.
    const again = await admin.client.post(`/api/directories/${d.id}/rows/${b.id}/restore`, {});
    expect(again.status).toBe(200);
    expect(treeShape((await tree(d.id)).nodes)).toEqual(['B2', ['A', ['Z', ['B', ['B1']], 'C']]]);
  });

  it('restores a row whose parent was deleted too under its nearest live ancestor; unknown rows and other organizations get 404', async () => {
    const d = await directory();
    const a = await row(d.id, ['A']);
    const b = await row(d.id, ['B'], a.id);
    const c = await row(d.id, ['C'], b.id);
    await row(d.id, ['D'], a.id);
    expect((await admin.client.delete(`/api/directories/${d.id}/rows/${c.id}`)).status).toBe(204);
    expect((await admin.client.delete(`/api/directories/${d.id}/rows/${b.id}`)).status).toBe(204);
    expect(treeShape((await tree(d.id)).nodes)).toEqual([['A', ['D']]]);
    const restored = await admin.client.post(`/api/directories/${d.id}/rows/${c.id}/restore`, {});
    expect(restored.status, JSON.stringify(restored.body)).toBe(200);
    expect(restored.body.parentId).toBe(a.id);
    expect(treeShape((await tree(d.id)).nodes)).toEqual([['A', ['C', 'D']]]);

    const unknown = await admin.client.post(`/api/directories/${d.id}/rows/${randomUUID()}/restore`, {});
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get('content-type')).toContain('application/problem+json');
    const other = await createOrg(t, 'row-restore-other');
    expect((await other.client.post(`/api/directories/${d.id}/rows/${b.id}/restore`, {})).status).toBe(404);
    expect(treeShape((await tree(d.id)).nodes)).toEqual([['A', ['C', 'D']]]);
  });
});

describe('deleted rows', () => {
  it('lists a directory’s deleted rows to any member, most recently deleted first, page by page', async () => {
    const d = await directory();
    const elsewhere = await directory();
    const made = [];
    for (const name of ['First', 'Second', 'Third', 'Kept']) made.push(await row(d.id, [name]));
    const other = await row(elsewhere.id, ['Elsewhere']);
    for (const gone of made.slice(0, 3)) {
      expect((await admin.client.delete(`/api/directories/${d.id}/rows/${gone.id}`)).status).toBe(204);
    }
    expect((await admin.client.delete(`/api/directories/${elsewhere.id}/rows/${other.id}`)).status).toBe(204);
    const member = await createMember(t, admin);
    const first = await member.client.get(`/api/directories/${d.id}/rows/deleted?limit=2`);
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body.items.map((r: { cells: unknown[] }) => r.cells[0])).toEqual(['Third', 'Second']);
    expect(first.body.items[0]).toMatchObject({
      id: made[2]?.id,
      deletedAt: expect.any(String),
      deletedBy: { id: admin.userId, name: expect.any(String) },
    });
    const second = await member.client.get(
      `/api/directories/${d.id}/rows/deleted?limit=2&cursor=${encodeURIComponent(first.body.nextCursor)}`,
    );
    expect(second.body.items.map((r: { cells: unknown[] }) => r.cells[0])).toEqual(['First']);
    expect(second.body.nextCursor).toBeNull();

    // One restored leaves the list.
    expect((await member.client.post(`/api/directories/${d.id}/rows/${made[1]?.id}/restore`, {})).status).toBe(200);
    const after = await member.client.get(`/api/directories/${d.id}/rows/deleted`);
    expect(after.body.items.map((r: { cells: unknown[] }) => r.cells[0])).toEqual(['Third', 'First']);

    expect((await member.client.get(`/api/directories/${d.id}/rows/deleted?cursor=nonsense`)).status).toBe(400);
    expect((await member.client.get(`/api/directories/${d.id}/rows/deleted?limit=0`)).status).toBe(400);
    const stranger = await createOrg(t, 'deleted-rows-other');
    expect((await stranger.client.get(`/api/directories/${d.id}/rows/deleted`)).status).toBe(404);
  });
});

describe('deleted directories', () => {
  it('lists them for administrators and restores one with its rows and tree as they were', async () => {
    const d = await directory({ name: `Depots ${randomUUID()}` });
    const a = await row(d.id, ['A']);
    await row(d.id, ['B'], a.id);
    const gone = await row(d.id, ['Gone']);
    expect((await admin.client.delete(`/api/directories/${d.id}/rows/${gone.id}`)).status).toBe(204);
    const before = await tree(d.id);
    expect((await admin.client.delete(`/api/directories/${d.id}`)).status).toBe(204);
    expect((await admin.client.get(`/api/directories/${d.id}`)).status).toBe(404);

    const member = await createMember(t, admin);
    const refused = await member.client.get('/api/directories/deleted');
    expect(refused.status).toBe(403);
    expect((await member.client.post(`/api/directories/${d.id}/restore`, {})).status).toBe(403);
    const listed = await admin.client.get('/api/directories/deleted');
    expect(listed.status, JSON.stringify(listed.body)).toBe(200);
    expect(listed.body.items[0]).toMatchObject({ id: d.id, parentDirectoryId: null, rowCount: 2 });

    const restored = await admin.client.post(`/api/directories/${d.id}/restore`, {});
    expect(restored.status, JSON.stringify(restored.body)).toBe(200);
    expect(restored.body).toMatchObject({ id: d.id, name: expect.stringMatching(/^Depots /) });
    expect(await tree(d.id)).toEqual(before);
    expect(
      (await admin.client.get('/api/directories/deleted')).body.items.map((i: { id: string }) => i.id),
    ).not.toContain(d.id);
    // Nothing left to undo: answered as it is.
    expect((await admin.client.post(`/api/directories/${d.id}/restore`, {})).status).toBe(200);
    const other = await createOrg(t, 'directory-restore-other');
    expect((await other.client.post(`/api/directories/${d.id}/restore`, {})).status).toBe(404);
    expect((await admin.client.post(`/api/directories/${randomUUID()}/restore`, {})).status).toBe(404);
  });

  it('restores a sub-directory only once its parent directory is back', async () => {
    const parent = await directory({ name: `Regions ${randomUUID()}` });
    const sub = await directory({ name: `Cities ${randomUUID()}`, parentDirectoryId: parent.id });
    expect((await admin.client.delete(`/api/directories/${parent.id}`)).status).toBe(409);
    expect((await admin.client.delete(`/api/directories/${sub.id}`)).status).toBe(204);
    expect((await admin.client.delete(`/api/directories/${parent.id}`)).status).toBe(204);
    const early = await admin.client.post(`/api/directories/${sub.id}/restore`, {});
    expect(early.status).toBe(409);
    expect(early.body.detail).toContain('Restore the parent directory first');
    expect((await admin.client.get(`/api/directories/${sub.id}`)).status).toBe(404);
    expect((await admin.client.post(`/api/directories/${parent.id}/restore`, {})).status).toBe(200);
    const back = await admin.client.post(`/api/directories/${sub.id}/restore`, {});
    expect(back.status, JSON.stringify(back.body)).toBe(200);
    expect(back.body.parentDirectoryId).toBe(parent.id);
  });
});

describe('rows', () => {
  it('pages, sorts by a column (numbers numerically) and searches cells by substring', async () => {
    const d = await directory();
    for (const [name, capacity] of [
      ['Склад Север', '1 200'],
      ['Склад Юг', '90'],
      ['Офис', '15,5'],
      ['Гараж', null],
    ] as const) {
      await row(d.id, [name, null, null, capacity]);
    }
    const sorted = await admin.client.get(`/api/directories/${d.id}/rows?sort=3&order=desc`);
    expect(sorted.body.items.map((r: { cells: unknown[] }) => r.cells[3])).toEqual(['1200', '90', '15.5', null]);
    const page1 = await admin.client.get(`/api/directories/${d.id}/rows?sort=0&limit=3`);
    const page2 = await admin.client.get(
      `/api/directories/${d.id}/rows?sort=0&limit=3&cursor=${page1.body.nextCursor}`,
    );
    expect([...page1.body.items, ...page2.body.items].map((r: { cells: string[] }) => r.cells[0])).toEqual([
      'Гараж',
      'Офис',
      'Склад Север',
      'Склад Юг',
    ]);
    expect(page2.body.nextCursor).toBeNull();
    const found = await admin.client.get(`/api/directories/${d.id}/rows?q=${encodeURIComponent('СКЛАД')}`);
    expect(found.body.items.map((r: { cells: string[] }) => r.cells[0]).sort()).toEqual(['Склад Север', 'Склад Юг']);
    const bad = await admin.client.post(`/api/directories/${d.id}/rows`, { cells: ['x', null, null, 'lots'] });
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0]).toMatchObject({ pointer: '#/cells/3', code: 'not_a_number' });
  });

  it('lets members edit rows but only administrators define directories', async () => {
    const member = await createMember(t, admin);
    const d = await directory();
    expect((await member.client.post('/api/directories', { name: 'X', columns: [{ name: 'A' }] })).status).toBe(403);
    const added = await member.client.post(`/api/directories/${d.id}/rows`, { cells: ['By member'] });
    expect(added.status).toBe(201);
    expect(
      (await member.client.patch(`/api/directories/${d.id}/rows/${added.body.id}`, { cells: ['Edited'] })).body
        .cells[0],
    ).toBe('Edited');
  });
});

describe('rows made with the client’s id', () => {
  it('takes the same row sent several times at once once: the others are told it exists, never a 500', async () => {
    const d = await directory();
    // A few rounds: requests that truly overlap are up to the scheduler.
    const ids = [randomUUID(), randomUUID(), randomUUID()];
    for (const id of ids) {
      const answers = await Promise.all(
        Array.from({ length: 8 }, () =>
          admin.client.post(`/api/directories/${d.id}/rows`, { id, cells: ['Quay'] }).then((r) => r.status),
        ),
      );
      expect(answers.sort()).toEqual([201, 409, 409, 409, 409, 409, 409, 409]);
    }
    const listed = (await admin.client.get(`/api/directories/${d.id}/rows`)).body.items as { id: string }[];
    expect(listed.map((r) => r.id).sort()).toEqual(ids.sort());
  });
});

describe('sub-directories', () => {
  it('changes only the cells a patch names by column index: a colleague’s change of another cell stays', async () => {
    const places = await directory();
    const depot = await row(places.id, ['Depot', 'D1', 'North', '10']);
    const path = `/api/directories/${places.id}/rows/${depot.id}`;
    // A colleague renames the region; the editor, opened before, saves the capacity its user changed.
    expect((await admin.client.patch(path, { cells: { '2': 'Far North' } })).status).toBe(200);
    const saved = await admin.client.patch(path, { cells: { '3': '12,5' } });
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);
    expect(saved.body.cells).toEqual(['Depot', 'D1', 'Far North', '12.5']);
    // A cell emptied is null; the whole list in column order still replaces every cell.
    expect((await admin.client.patch(path, { cells: { '1': null } })).body.cells).toEqual([
      'Depot',
      null,
      'Far North',
      '12.5',
    ]);
    expect((await admin.client.patch(path, { cells: ['Depot'] })).body.cells).toEqual(['Depot', null, null, null]);

    // A column that is not there, a value of the wrong type or a key that is no index: 400, nothing written.
    const past = await admin.client.patch(path, { cells: { '0': 'Changed', '4': 'x' } });
    expect(past.status).toBe(400);
    expect(past.headers.get('content-type')).toContain('application/problem+json');
    expect(past.body.errors).toEqual([expect.objectContaining({ pointer: '#/cells/4', code: 'no_such_column' })]);
    const wrong = await admin.client.patch(path, { cells: { '0': 'Changed', '3': 'many' } });
    expect(wrong.status).toBe(400);
    expect(wrong.body.errors).toEqual([expect.objectContaining({ pointer: '#/cells/3', code: 'not_a_number' })]);
    for (const cells of [{ name: 'Changed' }, { '-1': 'Changed' }, { '01': 'Changed' }, { '0': { nested: 1 } }]) {
      const refused = await admin.client.patch(path, { cells });
      expect(refused.status, JSON.stringify(cells)).toBe(400);
    }
    const stored = (await admin.client.get(`/api/directories/${places.id}/rows`)).body.items[0];
    expect(stored.cells).toEqual(['Depot', null, null, null]);
  });

  it('keeps both of two changes of one row made at once, its cells and its bindings', async () => {
    const regions = await directory({ name: 'Districts', columns: [{ name: 'Name' }] });
    const east = await row(regions.id, ['East']);
    const towns = await directory({ name: 'Towns', columns: [{ name: 'Name' }], parentDirectoryId: regions.id });
    // A few rounds: requests that truly overlap are up to the scheduler.
    for (let round = 0; round < 5; round++) {
      const town = await row(towns.id, [`Town ${round}`]);
      const answers = await Promise.all([
        admin.client.patch(`/api/directories/${towns.id}/rows/${town.id}`, { cells: [`Renamed ${round}`] }),
        admin.client.patch(`/api/directories/${towns.id}/rows/${town.id}`, { parentRowIds: [east.id] }),
      ]);
      expect(answers.map((answer) => answer.status)).toEqual([200, 200]);
      const stored = (await admin.client.get(`/api/directories/${towns.id}/rows`)).body.items.find(
        (r: { id: string }) => r.id === town.id,
      );
      expect(stored).toMatchObject({ cells: [`Renamed ${round}`], parentRowIds: [east.id] });
    }
  });

  it('offers only the sub-directory rows bound to the selected parent row', async () => {
    const regions = await directory({ name: 'Regions', columns: [{ name: 'Name' }] });
    const center = await row(regions.id, ['Center']);
    const north = await row(regions.id, ['North']);
    const south = await row(regions.id, ['South']);
    const cities = await directory({
      name: 'Cities',
      columns: [{ name: 'Name' }],
      parentDirectoryId: regions.id,
      parentRowIds: [center.id, north.id],
    });
    await row(cities.id, ['Moscow'], null, { parentRowIds: [center.id] });
    await row(cities.id, ['Murmansk'], null, { parentRowIds: [north.id] });
    await row(cities.id, ['Capital-anywhere'], null, { parentRowIds: [] });
    const names = async (parentRowId: string) =>
      (await admin.client.get(`/api/directories/${cities.id}/rows?parentRowId=${parentRowId}&sort=0`)).body.items.map(
        (r: { cells: string[] }) => r.cells[0],
      );
    expect(await names(center.id)).toEqual(['Capital-anywhere', 'Moscow']);
    expect(await names(north.id)).toEqual(['Capital-anywhere', 'Murmansk']);
    // The sub-directory is not bound to South at all.
    expect(await names(south.id)).toEqual([]);
    const wrong = await admin.client.post(`/api/directories/${cities.id}/rows`, {
      cells: ['X'],
      parentRowIds: [cities.id],
    });
    expect(wrong.status).toBe(400);
    expect(wrong.body.errors[0].code).toBe('unknown_row');
    // A row binds only to parent rows its sub-directory is bound to: South is not one of them.
    const unbound = await admin.client.post(`/api/directories/${cities.id}/rows`, {
      cells: ['Sochi'],
      parentRowIds: [south.id],
    });
    expect(unbound.status).toBe(400);
    expect(unbound.body.errors).toEqual([
      expect.objectContaining({ pointer: '#/parentRowIds/0', code: 'unbound_row' }),
    ]);
    const moscow = (await admin.client.get(`/api/directories/${cities.id}/rows?sort=0`)).body.items.find(
      (r: { cells: string[] }) => r.cells[0] === 'Moscow',
    );
    const moved = await admin.client.patch(`/api/directories/${cities.id}/rows/${moscow.id}`, {
      parentRowIds: [center.id, south.id],
    });
    expect(moved.status).toBe(400);
    expect(await names(center.id)).toEqual(['Capital-anywhere', 'Moscow']);
    expect((await admin.client.delete(`/api/directories/${regions.id}`)).status).toBe(409);
  });
});

describe('table fields', () => {
  it('stores row ids and answers labels from displayColumn, else the tree display column; deleted rows show as deleted', async () => {
    const d = await directory({ tree_display_column_index: 1 });
    const moscow = await row(d.id, ['Moscow', 'MSK']);
    const tula = await row(d.id, ['Tula', 'TUL']);
    const form = await createForm(admin, {
      fields: [
        { name: 'By name', type: 'table', directoryId: d.id, displayColumn: 'Name', allow_multiple: true },
        { name: 'By tree label', type: 'table', directoryId: d.id },
      ],
    });
    const [byName, byTree] = form.fields.map((f: { id: string }) => f.id);
    const task = await createTask(admin, form.id, { fields: { [byName]: [moscow.id, tula.id], [byTree]: tula.id } });
    expect(task.fields).toEqual({ [byName]: [moscow.id, tula.id], [byTree]: tula.id });
    expect(task.labels).toEqual({
      [byName]: [
        { id: moscow.id, label: 'Moscow', deleted: false },
        { id: tula.id, label: 'Tula', deleted: false },
      ],
      [byTree]: [{ id: tula.id, label: 'TUL', deleted: false }],
    });
    await admin.client.delete(`/api/directories/${d.id}/rows/${tula.id}`);
    const after = await admin.client.get(`/api/tasks/${task.id}`);
    expect(after.status).toBe(200);
    expect(after.body.labels[byTree]).toEqual([{ id: tula.id, label: 'TUL', deleted: true }]);
    const stale = await admin.client.patch(`/api/tasks/${task.id}`, { fields: { [byTree]: tula.id } });
    expect(stale.status).toBe(400);
    expect(stale.body.errors[0].code).toBe('unknown_row');
  });
});

describe('CSV', () => {
  it('round-trips a tree through export and import', async () => {
    const d = await directory();
    const a = await row(d.id, ['Север, "главный"', 'N', 'Москва', '1 000']);
    await row(d.id, ['Child', 'C', null, null], a.id);
    await row(d.id, ['Root 2', 'R', null, '7']);
    const exported = await admin.client.get(`/api/directories/${d.id}/export`);
    expect(exported.headers.get('content-type')).toMatch(/^text\/csv/);
    const copy = await directory({ name: 'Copy' });
    const imported = await admin.client.post(`/api/directories/${copy.id}/import`, { csv: exported.body });
    // Same ids cannot exist twice: the import into another directory refuses them.
    expect(imported.status).toBe(400);
    const withoutIds = (exported.body as string)
      .replace(/^\ufeff/, '')
      .split('\n')
      .map((line) => line.split(',').slice(2).join(','))
      .join('\n');
    const plain = await admin.client.post(`/api/directories/${copy.id}/import`, { csv: withoutIds });
    expect(plain.body).toEqual({ imported: 3, dryRun: false, errors: [] });
    // Replaced by new rows, the old ones are among the deleted rows, deleted by whoever imported.
    const again = await admin.client.post(`/api/directories/${copy.id}/import`, { csv: withoutIds, mode: 'replace' });
    expect(again.body.imported).toBe(3);
    const deleted = await admin.client.get(`/api/directories/${copy.id}/rows/deleted`);
    expect(deleted.body.items).toHaveLength(3);
    expect(
      deleted.body.items.every((r: { deletedBy: { id: string } | null }) => r.deletedBy?.id === admin.userId),
    ).toBe(true);

    // Replacing the same directory with its own export keeps ids, cells and tree.
    const before = await tree(d.id);
    const replaced = await admin.client.post(`/api/directories/${d.id}/import`, {
      csv: exported.body,
      mode: 'replace',
    });
    expect(replaced.body.imported).toBe(3);
    expect(await tree(d.id)).toEqual(before);
    const rows = await admin.client.get(`/api/directories/${d.id}/rows?sort=1`);
    expect(rows.body.items.map((r: { cells: unknown[] }) => r.cells)).toEqual([
      ['Child', 'C', null, null],
      ['Север, "главный"', 'N', 'Москва', '1000'],
      ['Root 2', 'R', null, '7'],
    ]);
  });

  it('rejects a bad file whole, and a dry run lists every error without writing', async () => {
    const d = await directory();
    await row(d.id, ['Existing']);
    const csv = 'Name,Capacity,Colour\nGood,10\nBad,many\nAlso bad,1,2,3\n';
    const preview = await admin.client.post(`/api/directories/${d.id}/import`, { csv, dryRun: true });
    expect(preview.status).toBe(200);
    expect(preview.body.imported).toBe(0);
    expect(preview.body.errors).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ line: 1, column: 'Colour' }),
        expect.objectContaining({ line: 3, column: 'Capacity' }),
      ]),
    );
    const real = await admin.client.post(`/api/directories/${d.id}/import`, { csv });
    expect(real.status).toBe(400);
    const after = await admin.client.get(`/api/directories/${d.id}/rows`);
    expect(after.body.items.map((r: { cells: unknown[] }) => r.cells[0])).toEqual(['Existing']);
    const good = await admin.client.post(`/api/directories/${d.id}/import`, {
      csv: 'name,CAPACITY\nA,1\nB,2\n',
      dryRun: true,
    });
    expect(good.body).toEqual({ imported: 2, dryRun: true, errors: [] });
    expect((await admin.client.get(`/api/directories/${d.id}/rows`)).body.items).toHaveLength(1);
  });

  it('takes a CSV file larger than the server’s general body limit, which other requests still keep', async () => {
    const d = await directory();
    const lines = ['Name,Capacity'];
    for (let i = 0; i < 40_000; i++) lines.push(`Warehouse number ${i} on the northern ring road,${i}`);
    const csv = lines.join('\n');
    expect(csv.length).toBeGreaterThan(2_000_000);
    const preview = await admin.client.post(`/api/directories/${d.id}/import`, { csv, dryRun: true });
    expect(preview.status).toBe(200);
    expect(preview.body).toEqual({ imported: 40_000, dryRun: true, errors: [] });
    const other = await admin.client.post(`/api/directories/${d.id}/rows`, { cells: [csv] });
    expect(other.status).toBe(413);
  });
});
