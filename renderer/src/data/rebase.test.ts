import { describe, expect, it } from 'vitest';
import { rebaseOnServerState } from './rebase';

const person = (userId: string) => ({ userId, source: 'manual' });

describe('rebaseOnServerState', () => {
  it('takes the server’s value where the replica left the pushed one, and keeps what it changed since', () => {
    const pushed = { id: 't', title: 'Mine', description: 'd', statusId: 's1', updatedAt: 'v1' };
    const held = { ...pushed, description: 'changed since', _rev: '3-x', _meta: { lwt: 1 } };
    const server = { id: 't', title: 'Office', description: 'd', statusId: 's2', updatedAt: 'v2' };
    expect(rebaseOnServerState(pushed, held, server)).toEqual({
      id: 't',
      title: 'Office',
      description: 'changed since',
      statusId: 's2',
      updatedAt: 'v2',
      _rev: '3-x',
      _meta: { lwt: 1 },
    });
  });

  it('rebases sets by what was added and taken off since the push', () => {
    const pushed = { assignees: [person('a'), person('b')], parentRowIds: ['r1'] };
    const held = { assignees: [person('b'), person('c')], parentRowIds: ['r1', 'r2'] };
    // The server assigned d meanwhile and kept a (the push's own) assigned.
    const server = { assignees: [person('a'), person('b'), person('d')], parentRowIds: ['r1'] };
    const rebased = rebaseOnServerState(pushed, held, server);
    expect((rebased.assignees as { userId: string }[]).map((entry) => entry.userId)).toEqual(['b', 'd', 'c']);
    expect(rebased.parentRowIds).toEqual(['r1', 'r2']);
  });

  it('rebases a task’s fields and a row’s cells each on its own', () => {
    const pushed = { fields: { f1: '1', f2: 'x' }, cells: ['A', '1'] };
    const held = { fields: { f1: '1', f2: 'y' }, cells: ['A', '2'] };
    const server = { fields: { f1: 'office', f2: 'x', f3: 'new' }, cells: ['Office', '1'] };
    expect(rebaseOnServerState(pushed, held, server)).toEqual({
      fields: { f1: 'office', f2: 'y', f3: 'new' },
      cells: ['Office', '2'],
    });
  });
});
