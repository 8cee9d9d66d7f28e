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
] as const;
export const SyncCollection = z.enum(SYNC_COLLECTIONS);
export type SyncCollection = z.infer<typeof SyncCollection>;

/** Collections the replica may push to; the others are read-only there. */
export const WRITABLE_COLLECTIONS: readonly SyncCollection[] = ['tasks'];

export const SyncCheckpoint = z.object({ xid: z.string().regex(/^\d+$/), seq: z.string().regex(/^\d+$/) });
export type SyncCheckpoint = z.infer<typeof SyncCheckpoint>;

/** A replicated document: the REST shape of the record plus RxDB's deletion flag. */
export const SyncDocument = z.object({ id: z.string(), _deleted: z.boolean() }).loose();
export type SyncDocument = z.infer<typeof SyncDocument>;

export const PullRequest = z.object({
  collection: SyncCollection,
  checkpoint: SyncCheckpoint.nullable(),
  batchSize: z.number().int().min(1).max(1000).default(100),
});
export type PullRequest = z.infer<typeof PullRequest>;

export interface PullResponse {
  documents: SyncDocument[];
  checkpoint: SyncCheckpoint | null;
}

export const PushRow = z.object({ assumedMasterState: SyncDocument.nullable(), newDocumentState: SyncDocument });
export const PushRequest = z.object({ collection: SyncCollection, rows: z.array(PushRow).max(500) });
export type PushRequest = z.infer<typeof PushRequest>;

/** An edit made offline that lost to a concurrent change on the server, or was refused. */
export interface LostEdit {
  id: string;
  /** `title`, `description`, `statusId`, or `fields.<fieldId>`. */
  path: string;
  attempted: unknown;
  kept: unknown;
  reason: 'changed_on_server' | 'refused';
  detail?: string;
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
  | { ok: false; problem: { status: number; code: string; title: string; detail: string } };
