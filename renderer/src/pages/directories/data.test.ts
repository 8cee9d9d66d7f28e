import { describe, expect, it } from 'vitest';
import { groupRows, narrowRows, orderBetween, type Row, rowChangeIsShown } from './data';

const row = (id: string, cells: Row['cells'], position: number, parentRowIds: string[] = []): Row => ({
  id,
  parentId: null,
  position,
  cells,
  parentRowIds,
  updatedAt: '2026-11-26T00:00:00.000Z',
});

describe('directory rows read from the replica', () => {
  const rows = [
    row('1', ['Moscow', 'MSK', 'Center'], 0, ['center']),
    row('2', ['Tula', 'TUL', 'Center'], 1, ['center']),
    row('3', ['Murmansk', 'MUR', 'North'], 2, ['north']),
    row('4', ['Nowhere', 'NOW', null], 3),
  ];

  it('are grouped by a column’s values like the server’s column-value tree', () => {
    const tree = groupRows(rows, 2, 1);
    expect(tree.map((n) => [n.kind, n.value, n.children.map((c) => c.label)])).toEqual([
      ['column_value', 'Center', ['MSK', 'TUL']],
      ['column_value', 'North', ['MUR']],
      ['column_value', null, ['NOW']],
    ]);
  });

  it('are narrowed by search text and by parent row as the server narrows them', () => {
    expect(narrowRows(rows, { q: 'mur' }).map((r) => r.id)).toEqual(['3']);
    expect(narrowRows(rows, { q: 'center' }).map((r) => r.id)).toEqual(['1', '2']);
    expect(narrowRows(rows, { parentRowId: 'north' }).map((r) => r.id)).toEqual(['3', '4']);
    // A sub-directory bound to other parent rows offers nothing under this one.
    expect(narrowRows(rows, { parentRowId: 'south' }, ['center', 'north'])).toEqual([]);
  });
});

describe('ordering a row moved without the server', () => {
  const at = (...positions: number[]) => positions.map((position) => ({ position }));
  it('puts it between its new neighbours, before the first or after the last', () => {
    expect(orderBetween(at(0, 1, 2), 1)).toBe(0.5);
    expect(orderBetween(at(2, 0, 1), 0)).toBe(-1);
    expect(orderBetween(at(0, 1, 2), 3)).toBe(3);
    expect(orderBetween(at(0, 1, 2), 99)).toBe(3);
    expect(orderBetween(at(0, 0.5, 1), 2)).toBe(0.75);
    expect(orderBetween([], 0)).toBe(0);
  });
});

describe('a row change reaching the replica', () => {
  const shown = new Map([
    ['1', row('1', ['Moscow', 7], 0, ['center'])],
    ['2', row('2', ['Tula', null], 1)],
  ]);
  const change = (id: string, edit: Partial<Row> = {}, deleted = false) => {
    const held = shown.get(id) ?? row(id, ['New'], 9);
    return { id, deleted, row: { ...held, ...edit, updatedAt: '2026-11-29T00:00:00.000Z' } };
  };

  it('is already shown when the view holds the same row, whatever its time', () => {
    expect(rowChangeIsShown(shown, change('1'))).toBe(true);
    expect(rowChangeIsShown(shown, change('1', { cells: ['Moscow', 7] }))).toBe(true);
    // A deletion of a row the view does not show.
    expect(rowChangeIsShown(shown, change('3', {}, true))).toBe(true);
  });

  it('shows something new when a value, the place or the bindings differ, or the row is new or gone', () => {
    expect(rowChangeIsShown(shown, change('1', { cells: ['Moscow', 8] }))).toBe(false);
    expect(rowChangeIsShown(shown, change('1', { parentId: '2' }))).toBe(false);
    expect(rowChangeIsShown(shown, change('1', { position: 3 }))).toBe(false);
    expect(rowChangeIsShown(shown, change('1', { parentRowIds: [] }))).toBe(false);
    expect(rowChangeIsShown(shown, change('3'))).toBe(false);
    expect(rowChangeIsShown(shown, change('2', {}, true))).toBe(false);
  });
});
