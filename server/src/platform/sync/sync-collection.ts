import type { GoneRecord, LostEdit, SyncCheckpoint, SyncCollection, SyncDocument } from '@shared/sync';
import { z } from 'zod';
import type { AuthContext } from '../auth/auth-context';
import type { Queryable } from '../db/db';
import type { UnitDeps } from '../db/unit-of-work';
import { Problem } from '../http/problem';
import {
  type AsCaller,
  appliedTogether,
  malformedPush,
  nextCheckpoint,
  refusedAsLost,
  refusedRecordAsLost,
  type SyncSource,
  tombstone,
} from './sync-source';

/** A changed record as a pull query reads it: its columns and its place in commit order. */
export interface ChangedRow {
  id: string;
  sync_xid: string;
  sync_seq: string;
}

/** How a replicated collection is read: the repo's query, the policy's filter, the REST presenter. */
export interface PullDefinition<Row extends ChangedRow> {
  /** The changes after `checkpoint`, in commit order (`changedSince`), at most `limit`. */
  changes(db: Queryable, auth: AuthContext, checkpoint: SyncCheckpoint | null, limit: number): Promise<Row[]>;
  /** Whether the record is gone (a tombstone for everyone); `deleted_at` unless said otherwise. */
  gone?(row: Row): boolean;
  /** Whether the caller may see the record (the module's policy); records they may not become tombstones. */
  visible?(auth: AuthContext, row: Row): boolean;
  /** The documents of live, visible records, by id: what REST answers, as replicas hold it. */
  present(
    db: Queryable,
    auth: AuthContext,
    rows: Row[],
  ): Promise<Map<string, SyncDocument>> | Map<string, SyncDocument>;
}

/** A record as a replica pushes it: the server state it edited from, and its state now. */
type PushRow = { assumedMasterState: SyncDocument | null; newDocumentState: SyncDocument };

/** A pushed record, as the module's push handler receives it. */
export interface PushedRecord {
  /** The server state the replica edited from (RxDB's `assumedMasterState`), null for a new record. */
  base: SyncDocument | null;
  /** The record as the replica has it now (`newDocumentState`). */
  next: SyncDocument;
  /** Edits the server could not take, reported back value by value. */
  lost: LostEdit[];
}

/**
 * How records written on replicas are applied: each through the module's services, as one unit of
 * work, with the outcome compared to what was pushed.
 */
export interface PushDefinition<Deps extends UnitDeps, Prepared> {
  /** What a pushed live document must look like before any service sees it. */
  shape: z.ZodType;
  /** The record's name in messages ("task", "row"). */
  noun: string;
  /** A document's values as a replica edits them, by lost-edit path (`fields.<id>`, `cells.<index>`…). */
  values(document: object): Map<string, unknown>;
  /** The record as an edit has it, to name it once it is not on the server. */
  record(deps: Deps, auth: AuthContext, document: SyncDocument): GoneRecord | Promise<GoneRecord>;
  /** The server's copy as the caller's replicas hold it now: a tombstone when gone or hidden. */
  master(deps: Deps, auth: AuthContext, id: string, asCaller: AsCaller): Promise<SyncDocument>;
  /**
   * The order a push's records are applied in, when some refer to others (what is referred to
   * first); as the replica sent them when absent.
   */
  order?(rows: readonly PushRow[]): PushRow[];
  /** Read once before a push's records are applied (e.g. the records' states as the push began). */
  prepare?(deps: Deps, auth: AuthContext, ids: string[]): Promise<Prepared>;
  /** Merges one record three-way and applies it through the module's services (`held`: bound to its unit). */
  apply(held: Deps, auth: AuthContext, pushed: PushedRecord, prepared: Prepared): Promise<void>;
  /** Whether the server's state is what was pushed (else the replica is sent the server's as a conflict). */
  sameState(master: SyncDocument, pushed: SyncDocument): boolean;
}

export interface SyncCollectionDefinition<Row extends ChangedRow, Deps extends UnitDeps, Prepared> {
  collection: SyncCollection | (string & {});
  pull: PullDefinition<Row>;
  /** Absent: read-only on replicas. */
  push?: { deps: Deps } & PushDefinition<Deps, Prepared>;
}

/** The live documents of rows presented one by one (by the module's REST presenter). */
export function presentEach<Row extends ChangedRow>(
  rows: Row[],
  present: (row: Row) => object,
): Map<string, SyncDocument> {
  return new Map(rows.map((row) => [row.id, { ...present(row), _deleted: false } as SyncDocument]));
}

const isGone = (row: ChangedRow) => (row as { deleted_at?: Date | null }).deleted_at != null;

/**
 * A replicated collection, declared once: its pull query, policy and presenter, and its push
 * handler. Pulls send tombstones for records gone or hidden from the caller; pushes apply each
 * record as its own unit of work, a refused one reported lost without failing the others.
 */
export function defineSyncCollection<Row extends ChangedRow, Deps extends UnitDeps, Prepared = undefined>(
  definition: SyncCollectionDefinition<Row, Deps, Prepared>,
): SyncSource {
  const { pull, push } = definition;
  return {
    collection: definition.collection,
    async pull(db, auth, checkpoint, limit) {
      const rows = await pull.changes(db, auth, checkpoint, limit);
      const gone = pull.gone ?? isGone;
      const live = rows.filter((row) => !gone(row) && (pull.visible?.(auth, row) ?? true));
      const documents = await pull.present(db, auth, live);
      return {
        documents: rows.map((row) => documents.get(row.id) ?? tombstone(row.id)),
        checkpoint: nextCheckpoint(rows, checkpoint),
      };
    },
    ...(push && {
      async push(auth, rows, asCaller) {
        const { deps } = push;
        const lost: LostEdit[] = [];
        const conflicts: SyncDocument[] = [];
        const ids = rows.map((row) => row.newDocumentState.id);
        if (!ids.every((id) => z.uuid().safeParse(id).success)) {
          throw Problem.of('validation_failed', `Every pushed ${push.noun} needs its UUID in id.`);
        }
        const prepared = (await push.prepare?.(deps, auth, ids)) as Prepared;
        for (const row of push.order?.(rows) ?? rows) {
          const next = row.newDocumentState;
          const refused = malformedPush(push.shape, row);
          if (refused) {
            // Refused on its own: the replica lands on the server's state.
            lost.push(refused);
            conflicts.push(await push.master(deps, auth, next.id, asCaller));
            continue;
          }
          const before = lost.length;
          const pushed = { base: row.assumedMasterState, next, lost };
          await refusedAsLost(lost, { id: next.id, path: '', attempted: next, kept: null }, () =>
            appliedTogether(deps, (held) => push.apply(held, auth, pushed, prepared)),
          );
          const master = await push.master(deps, auth, next.id, asCaller);
          // Refused and not on the server (made offline): what the user entered, value by value.
          if (master._deleted && !next._deleted) {
            await refusedRecordAsLost(
              lost,
              lost.length > before ? lost.at(-1) : undefined,
              () => push.record(deps, auth, next),
              {
                base: row.assumedMasterState ? push.values(row.assumedMasterState) : new Map(),
                next: push.values(next),
              },
            );
          }
          if (lost.length > before || !push.sameState(master, next)) conflicts.push(master);
        }
        return { conflicts, lost };
      },
    }),
  };
}
