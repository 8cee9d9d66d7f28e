import { describe, expect, it } from 'vitest';
import { groupRows, narrowRows, orderBetween, type Row } from './data';

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
