import { z } from 'zod';

/**
 * The replication protocol between the desktop replica and the server (Socket.IO namespace
 * `/sync`). Checkpoints follow commit order: `{xid, seq}` of the last change handed out.
 */
export const SYNC_COLLECTIONS = [
  'forms',
  'statuses',
  'tasks',
  'directories',
  'directory_rows',
  'users',
  'roles',
  'gps_objects',
  'gps_geofences',
  'gps_tracks',
] as const;
export const SyncCollection = z.enum(SYNC_COLLECTIONS);
export type SyncCollection = z.infer<typeof SyncCollection>;

export const SyncCheckpoint = z.object({
  xid: z.string().regex(/^\d+$/),
  seq: z.string().regex(/^\d+$/),
  /**
   * With `xid` 0 (no transaction has it: the collection starts over), a module's access was
   * withdrawn from the user: tombstones of its records were sent up to this id (GPS collections).
   */
  withdrawnAfter: z.string().max(200).optional(),
});
export type SyncCheckpoint = z.infer<typeof SyncCheckpoint>;

/**
 * A replicated document: the REST shape of the record plus RxDB's deletion flag. On the wire only
 * the flag is checked; each collection validates the rest like its REST route does.
 */
export const SyncDocument = z.object({ _deleted: z.boolean() }).loose();
export type SyncDocument = { id: string; _deleted: boolean } & Record<string, unknown>;

/** A collection name; the server answers 400 for one it does not replicate. */
const CollectionName = z.string().min(1).max(100);

export const PullRequest = z.object({
  collection: CollectionName,
  checkpoint: SyncCheckpoint.nullable(),
  batchSize: z.number().int().min(1).max(1000).default(100),
});
export type PullRequest = z.infer<typeof PullRequest>;

export interface PullResponse {
  documents: SyncDocument[];
  checkpoint: SyncCheckpoint | null;
}

export const PushRow = z.object({ assumedMasterState: SyncDocument.nullable(), newDocumentState: SyncDocument });
export const PushRequest = z.object({ collection: CollectionName, rows: z.array(PushRow).max(500) });
export type PushRequest = z.infer<typeof PushRequest>;

/** An edit made offline that lost to a concurrent change on the server, was refused, or whose record is gone. */
export interface LostEdit {
  id: string;
  /** `title`, `description`, `statusId`, `fields.<fieldId>`, `assignees[.<userId>]`; rows: `cells.<index>`, `parentId`, `parentRowIds`; `_deleted`. */
  path: string;
  attempted: unknown;
  kept: unknown;
  /** `gone_on_server`: the record was deleted on the server meanwhile, or is no longer shared with the user (`kept` is null). */
  reason: 'changed_on_server' | 'refused' | 'gone_on_server';
  detail?: string;
  /** With `refused`: the problem's code (`form_deleted`, `assigned_by_field`…), for the device to say it in the user's language. */
  code?: string;
  /** With `gone_on_server`: the record as the edit had it, so the device can still say which it was. */
  record?: GoneRecord;
}

/** A record gone on the server, as an edit pushed from a replica had it. */
export interface GoneRecord {
  /** What it was called: a task's title, a row's label. */
  name: string;
  formId?: string;
  directoryId?: string;
}

export interface PushResponse {
  /** Master states of documents whose final state differs from what the client pushed. */
  conflicts: SyncDocument[];
  lost: LostEdit[];
}

export interface StreamMessage {
  collection: SyncCollection;
  documents: SyncDocument[];
  checkpoint: SyncCheckpoint | null;
}

/** Acknowledgement of a sync event: the answer, or a problem (RFC 9457 shape). */
export type SyncAck<T> =
  | { ok: true; data: T }
  | {
      ok: false;
      /** `requestId` names this failure in the server's log and in the organization's error log. */
      problem: { status: number; code: string; title: string; detail: string; requestId?: string };
    };
