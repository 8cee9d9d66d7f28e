import { deepEqual } from 'rxdb';

type State = Record<string, unknown>;

/** Values held as sets: people by `userId`, bound rows by id. */
const SETS: Record<string, (item: unknown) => string> = {
  assignees: (item) => String((item as { userId?: unknown })?.userId),
  parentRowIds: (item) => String(item),
};
/** Values merged part by part: a task's fields by id, a row's cells by column. */
const PARTS = new Set(['fields', 'labels', 'cells']);

/** The set `key` of `held` rebased: the server's, plus what the replica added since `pushed`, less what it took off. */
function rebaseSet(idOf: (item: unknown) => string, pushed: unknown, held: unknown, server: unknown): unknown[] {
  const list = (value: unknown) => (Array.isArray(value) ? value : []);
  const before = new Set(list(pushed).map(idOf));
  const now = new Map(list(held).map((item) => [idOf(item), item]));
  const added = [...now].filter(([id]) => !before.has(id)).map(([, item]) => item);
  const removed = new Set([...before].filter((id) => !now.has(id)));
  const kept = list(server).filter((item) => !removed.has(idOf(item)));
  const keptIds = new Set(kept.map(idOf));
  return [...kept, ...added.filter((item) => !keptIds.has(idOf(item)))];
}

/** Object or array `held` rebased part by part: a part the replica has not changed since `pushed` takes the server's. */
function rebaseParts(pushed: unknown, held: unknown, server: unknown): unknown {
  if (Array.isArray(held) || Array.isArray(server)) {
    const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
    const [p, h, s] = [list(pushed), list(held), list(server)];
    return Array.from({ length: Math.max(h.length, s.length) }, (_, index) =>
      deepEqual(h[index], p[index]) ? (s[index] ?? null) : h[index],
    );
  }
  const record = (value: unknown): State => (value && typeof value === 'object' ? (value as State) : {});
  const [p, h, s] = [record(pushed), record(held), record(server)];
  const merged: State = {};
  for (const key of new Set([...Object.keys(h), ...Object.keys(s)])) {
    const value = deepEqual(h[key], p[key]) ? s[key] : h[key];
    if (value !== undefined) merged[key] = value;
  }
  return merged;
}

/**
 * A document the replica changed again while a push of it was on its way, rebased onto the state
 * the server answered that push with (`server`: the push merged with what changed there): each
 * value the replica left as it pushed it (`pushed`) takes the server's, and each it changed since
 * keeps the replica's change — a set (assignees, bound rows) by what was added and taken off, a
 * task's fields and a row's cells each on its own. Pushed against `server`, the result carries the
 * changes made since that push and nothing else: neither the values the push lost (made again
 * unseen) nor, missing, what the push itself changed (a person assigned then taken off again
 * stayed assigned). Fields of RxDB's own (`_meta`, `_rev`…) stay the replica's.
 */
export function rebaseOnServerState(pushed: State, held: State, server: State): State {
  const rebased: State = { ...held };
  for (const key of new Set([...Object.keys(server), ...Object.keys(held)])) {
    if (key.startsWith('_')) continue;
    const idOf = SETS[key];
    // A value the server's state does not carry (a field of the replica's own) stays as held.
    if (deepEqual(held[key], pushed[key])) rebased[key] = key in server ? server[key] : held[key];
    else if (idOf) rebased[key] = rebaseSet(idOf, pushed[key], held[key], server[key]);
    else if (PARTS.has(key)) rebased[key] = rebaseParts(pushed[key], held[key], server[key]);
    if (rebased[key] === undefined) delete rebased[key];
  }
  return rebased;
}
