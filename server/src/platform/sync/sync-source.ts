import type {
  GoneRecord,
  LostEdit,
  PullResponse,
  PushResponse,
  SyncCheckpoint,
  SyncCollection,
  SyncDocument,
} from '@shared/sync';
import type { z } from 'zod';
import type { AuthContext } from '../auth/auth-context';
import type { Queryable } from '../db/db';
import { inUnit, type UnitDeps } from '../db/unit-of-work';
import { inadmissibleValues, Problem } from '../http/problem';

/**
 * The refusal of a pushed document that cannot go to the services at all, or undefined when it
 * can: a live one not of the `shape` they take; any one holding what no request may carry
 * (`inadmissibleValues`: a NUL character, nesting too deep). Such a document is refused on its
 * own (reported lost, value `''`), so the rest of the push goes through; the refusal echoes
 * nothing of one nested too deep, which the answer's encoding could not take either.
 */
export function malformedPush(
  shape: z.ZodType,
  row: { assumedMasterState: SyncDocument | null; newDocumentState: SyncDocument },
): LostEdit | undefined {
  const document = row.newDocumentState;
  const parsed = document._deleted ? undefined : shape.safeParse(document);
  // The base is compared value by value with the server's: held to the same limits.
  const inadmissible = [
    ...inadmissibleValues('body', document),
    ...inadmissibleValues('body', row.assumedMasterState).map((error) => ({
      ...error,
      pointer: `#/assumedMasterState${error.pointer.slice(1)}`,
    })),
  ];
  const issues = [
    ...(parsed && !parsed.success
      ? parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`)
      : []),
    ...inadmissible.map((error) => `${error.pointer.slice(2).replaceAll('/', '.')}: ${error.detail}`),
  ];
  if (issues.length === 0) return undefined;
  const tooDeep = inadmissible.some((error) => error.code === 'too_deep');
  return {
    id: String(document.id),
    path: '',
    attempted: tooDeep ? null : document,
    kept: null,
    reason: 'refused',
    detail: issues.join('; '),
    code: 'validation_failed',
  };
}

/**
 * A pushed document with each of its values (`keys`) that it leaves out taken from `from`: the
 * state it was edited from (its base), else the server's. A push says what the document is now,
 * and a value it does not carry is one it did not change. Replicas push whole documents; a client
 * pushing only what it changed would otherwise clear the rest (a title "undefined", every field
 * emptied, a row moved to the root), or be told without a base that those values were lost.
 */
export function withValuesLeftOut<T extends Record<string, unknown>>(
  next: T,
  from: object | null | undefined,
  keys: readonly string[],
): T {
  if (!from || next._deleted) return next;
  const source = from as Record<string, unknown>;
  const leftOut = keys.filter((key) => next[key] === undefined && source[key] !== undefined);
  return leftOut.length === 0 ? next : { ...next, ...Object.fromEntries(leftOut.map((key) => [key, source[key]])) };
}

/**
 * Applies one pushed record as one unit of work: `work` gets `deps` bound to it (each service's
 * own unit a step of it, undone alone when refused; events published once it has committed).
 * `work` locks the record first, as every write of it does, so the merge reads the server's state
 * and writes its outcome with no write between.
 */
export function appliedTogether<Deps extends UnitDeps, T>(deps: Deps, work: (held: Deps) => Promise<T>): Promise<T> {
  return inUnit(deps, (unit) => work(unit.bind(deps)));
}

/**
 * Creates a record pushed as new. When a push running alongside created it first — the same record
 * sent again while the first attempt still ran — the creation answers `conflict` and the record
 * now `exists()`: it is pushed again (`asExisting`), merged as the record the server holds, so the
 * user is not told that their own record was not kept.
 */
export async function createdOrMerged(
  create: () => Promise<void>,
  exists: () => Promise<boolean>,
  asExisting: () => Promise<void>,
): Promise<void> {
  try {
    await create();
  } catch (error) {
    if (error instanceof Problem && error.code === 'conflict' && (await exists())) return asExisting();
    throw error;
  }
}

/** A replicated collection, provided by the module that owns its records. */
export interface SyncSource {
  /** A product collection, or another name (tests register their own). */
  collection: SyncCollection | (string & {});
  /** The documents' primary key field; `id` unless said otherwise. */
  primaryKey?: string;
  /** Changes after `checkpoint` that the caller may see, in commit order; others' become tombstones. */
  pull(db: Queryable, auth: AuthContext, checkpoint: SyncCheckpoint | null, limit: number): Promise<PullResponse>;
  /**
   * Applies rows written on a replica through the module's services. Absent: read-only. What a
   * record is on the server for the caller (the answer's conflicts) is read through `asCaller`:
   * on their view as it stands after the read, like a pull, so the answer is never older than a
   * pull answered before it.
   */
  push?(
    auth: AuthContext,
    rows: { assumedMasterState: SyncDocument | null; newDocumentState: SyncDocument }[],
    asCaller: AsCaller,
  ): Promise<PushResponse>;
}

/** Reads as the caller on their view as it stands once the read is done (read again when it changed meanwhile). */
export type AsCaller = <T>(read: (auth: AuthContext) => Promise<T>) => Promise<T>;

/**
 * The commit-order condition of a pull, for a table aliased `alias` with `sync_xid`/`sync_seq`:
 * only rows of transactions older than every transaction still running (so nothing can commit
 * behind the checkpoint later), after the checkpoint `($xidParam, $seqParam)`.
 */
export function changedSince(alias: string, xidParam: number, seqParam: number): string {
  return `${alias}.sync_xid < pg_snapshot_xmin(pg_current_snapshot())
    AND ($${xidParam}::text IS NULL OR (${alias}.sync_xid, ${alias}.sync_seq) > ($${xidParam}::text::xid8, $${seqParam}::bigint))`;
}

export function checkpointParams(checkpoint: SyncCheckpoint | null): [string | null, string | null] {
  return [checkpoint?.xid ?? null, checkpoint?.seq ?? null];
}

/** The checkpoint after a batch: the last row's, or the one given when the batch is empty. */
export function nextCheckpoint(
  rows: readonly { sync_xid: string; sync_seq: string }[],
  checkpoint: SyncCheckpoint | null,
): SyncCheckpoint | null {
  const last = rows.at(-1);
  return last ? { xid: last.sync_xid, seq: last.sync_seq } : checkpoint;
}

/** The columns a pull selects besides the record's own, for a table aliased `alias`. */
export function syncColumns(alias: string): string {
  return `${alias}.sync_xid::text AS sync_xid, ${alias}.sync_seq::text AS sync_seq`;
}

/** A deletion (or a record the caller may no longer see) as the replica receives it. */
export function tombstone(id: string): SyncDocument {
  return { id, _deleted: true };
}

/** Equality of two JSON values as replicas and the server hold them (missing is null). */
export function sameValue(a: unknown, b: unknown): boolean {
  return JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
}

/** Runs a change through the service; a refusal (4xx) becomes a lost edit, anything else fails the push. */
export async function refusedAsLost(
  lost: LostEdit[],
  edit: Omit<LostEdit, 'reason' | 'detail'>,
  work: () => Promise<unknown>,
) {
  try {
    await work();
  } catch (error) {
    if (!(error instanceof Problem) || error.status >= 500) throw error;
    lost.push({ ...edit, reason: 'refused', detail: error.message, code: error.code });
  }
}

/**
 * Runs one change of several values through the service; a refusal (4xx) is reported for each of
 * those values with the server's reason, so the user reads which of their values it concerns.
 */
export async function refusedValuesAsLost(
  lost: LostEdit[],
  id: string,
  values: { path: string; attempted: unknown; kept: unknown }[],
  work: () => Promise<unknown>,
) {
  try {
    await work();
  } catch (error) {
    if (!(error instanceof Problem) || error.status >= 500) throw error;
    for (const value of values) {
      lost.push({ id, ...value, reason: 'refused', detail: error.message, code: error.code });
    }
  }
}

/**
 * The server state a pushed row was edited from. RxDB sends none when the replica kept none: its
 * record of the server state is written after the document itself, so an app closed between the
 * two writes leaves a document without it, and a pull does not repair a document the user has
 * edited since. A replica never changes a document's `updatedAt` (the server's version of it), so
 * while the server still holds that version, its current state is the base: the edit merges
 * three-way instead of being reported lost. Versions are compared to the millisecond, as
 * documents carry them; every write of a task or a directory row is a millisecond later than the
 * one before (`sync_version` trigger), so no two versions of a record share one.
 */
export function knownBase<Base extends object>(
  base: Base | null,
  current: object,
  next: Record<string, unknown>,
): Base | null {
  if (base !== null) return base;
  const version = next.updatedAt;
  return typeof version === 'string' && version === (current as { updatedAt?: unknown }).updatedAt
    ? (current as Base)
    : null;
}

/** Every path whose value differs between two states of a record (its values by lost-edit path). */
export function differingValues(
  a: ReadonlyMap<string, unknown>,
  b: ReadonlyMap<string, unknown>,
): { path: string; a: unknown; b: unknown }[] {
  return [...new Set([...a.keys(), ...b.keys()])]
    .filter((path) => !sameValue(a.get(path), b.get(path)))
    .map((path) => ({ path, a: a.get(path), b: b.get(path) }));
}

/**
 * A record edited offline that is gone on the server (deleted meanwhile, or no longer shared with
 * the user): each value the edit changed from its base is reported lost, with the record as the
 * edit had it, so nothing the user typed disappears unseen. Nothing of the server's copy is told.
 */
export function lostWithRecord(
  lost: LostEdit[],
  id: string,
  record: GoneRecord,
  values: { base: ReadonlyMap<string, unknown>; next: ReadonlyMap<string, unknown> },
): void {
  for (const { path, b } of differingValues(values.base, values.next)) {
    lost.push({ id, path, attempted: b ?? null, kept: null, reason: 'gone_on_server', record });
  }
}

/**
 * A record the server refused as a whole and does not hold (a task created offline on a form
 * deleted meanwhile, or with a value a rule made since refuses): instead of one entry holding the
 * whole document, each value the edit set is reported refused with the server's reason and the
 * record as the edit had it, as for a record gone on the server. `refusal` is the whole-record
 * entry `refusedAsLost` added (path `''`), if any; it is replaced in `lost`.
 */
export async function refusedRecordAsLost(
  lost: LostEdit[],
  refusal: LostEdit | undefined,
  recordOf: () => GoneRecord | Promise<GoneRecord>,
  values: { base: ReadonlyMap<string, unknown>; next: ReadonlyMap<string, unknown> },
): Promise<void> {
  if (refusal?.path !== '' || refusal.reason !== 'refused') return;
  // A value the edit left empty where the base had none (a new record's) is no value entered.
  const empty = (value: unknown) => sameValue(value, null) || sameValue(value, '') || sameValue(value, []);
  const changes = differingValues(values.base, values.next).filter(({ a, b }) => a !== undefined || !empty(b));
  if (changes.length === 0) return;
  const record = await recordOf();
  lost.splice(lost.indexOf(refusal), 1);
  for (const { path, b } of changes) {
    lost.push({
      id: refusal.id,
      path,
      attempted: b ?? null,
      kept: null,
      reason: 'refused',
      detail: refusal.detail,
      code: refusal.code,
      record,
    });
  }
}

/** `keptWithoutBase` for every value of a record (its values by lost-edit path). */
export function keptValuesWithoutBase(
  lost: LostEdit[],
  id: string,
  values: { current: ReadonlyMap<string, unknown>; next: ReadonlyMap<string, unknown> },
): void {
  for (const { path, a, b } of differingValues(values.current, values.next)) {
    lost.push({ id, path, attempted: b, kept: a, reason: 'changed_on_server' });
  }
}

/**
 * A value pushed without the server state it was based on, for a record the server has (the
 * replica held no server state for it, or the record was created on both sides with one id):
 * whose change a difference is cannot be told, so the server's value stays and a different pushed
 * one is reported lost — never dropped unseen.
 */
export function keptWithoutBase(
  lost: LostEdit[],
  edit: { id: string; path: string },
  values: { current: unknown; next: unknown },
): void {
  if (!sameValue(values.current, values.next)) {
    lost.push({ ...edit, attempted: values.next, kept: values.current, reason: 'changed_on_server' });
  }
}

/**
 * The three-way rule for one value edited offline: true when the client changed it and the server
 * did not (the client's value is to be applied); when both changed it differently, the server's
 * stays and the client's edit is recorded as lost under `path`.
 */
export function clientWins(
  lost: LostEdit[],
  edit: { id: string; path: string },
  values: { base: unknown; current: unknown; next: unknown },
): boolean {
  const { base, current, next } = values;
  if (sameValue(next, base)) return false;
  if (sameValue(current, base)) return true;
  if (!sameValue(current, next)) lost.push({ ...edit, attempted: next, kept: current, reason: 'changed_on_server' });
  return false;
}

/**
 * The three-way merge of a record's values edited offline, value by value (`clientWins` for each
 * path of base or pushed state that `edited` admits): the values the client's change wins, by
 * path; a value changed on both sides keeps the server's and is reported lost. Each collection
 * configures it with its values (`fields.<id>`, `cells.<index>`…) and which of them it merges here.
 */
export function clientChanges(
  lost: LostEdit[],
  id: string,
  values: {
    base: ReadonlyMap<string, unknown>;
    current: ReadonlyMap<string, unknown>;
    next: ReadonlyMap<string, unknown>;
  },
  edited: (path: string) => boolean,
): Map<string, unknown> {
  const won = new Map<string, unknown>();
  for (const path of new Set([...values.base.keys(), ...values.next.keys()])) {
    if (!edited(path)) continue;
    const states = { base: values.base.get(path), current: values.current.get(path), next: values.next.get(path) };
    if (clientWins(lost, { id, path }, states)) won.set(path, states.next ?? null);
  }
  return won;
}
