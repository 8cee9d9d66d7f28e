import type { LostEdit, SyncDocument } from '@shared/sync';
import { KeptMap, type KeptOnDevice, KeptRecord } from '../kept-records';
import { metaInstanceOf, type ReplicationProtocol } from './rxdb-internals';

/**
 * Per document, what the attempts of a push not answered yet sent: the server state the first
 * attempt was sent against (`base`), and every state sent after it, in order.
 */
export type SentStates = Record<string, { base: Record<string, unknown> | null; states: Record<string, unknown>[] }>;

/**
 * Per document, a master state the downstream did not write over a change of the user's, to be
 * written once that change is settled: a pulled or streamed state, or the tombstone of a record a
 * push's answer says is gone.
 */
export type DeferredMasterStates = Record<string, SyncDocument>;

/**
 * Per document, a push's answer being taken into the replica: the last state the push sent of it
 * (`pushed`) and the master state it was answered with (`server`, the push merged with what
 * changed there), kept from before its assumed master state is written until the document is
 * rebased onto it.
 */
export type TakenAnswers = Record<string, { pushed: Record<string, unknown>; server: SyncDocument }>;

/** What an earlier release kept on the device, per kept map. */
export interface KeptOnDeviceOptions {
  keepSentStates?: KeptOnDevice<SentStates>;
  keepDeferredMasterStates?: KeptOnDevice<DeferredMasterStates>;
  keepAnswers?: KeptOnDevice<TakenAnswers>;
}

/** What a replication keeps with its records across restarts of the app (`KeptMap`). */
export interface KeptStates {
  /** What the attempts of pushes not answered yet sent (`SentStates`). */
  sent: KeptMap<SentStates[string]>;
  /** Master states deferred for documents with a change of the user's (`DeferredMasterStates`). */
  deferred: KeptMap<SyncDocument>;
  /** Answers being taken into the replica (`TakenAnswers`). */
  answers: KeptMap<TakenAnswers[string]>;
  /** The edits the server reported lost, one per record and value, until the user has seen them. */
  lost: KeptMap<LostEdit>;
  /** Set once the maps are read from the records (`readKeptStates`). */
  reading?: Promise<unknown>;
}

/** Lost edits a replication keeps until the user has seen them (the oldest go first). */
const MAX_KEPT_LOST = 1_000;

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const isSentStates = (value: unknown): value is SentStates[string] =>
  isRecord(value) &&
  (value.base === null || isRecord(value.base)) &&
  Array.isArray(value.states) &&
  value.states.every(isRecord);
const isTakenAnswer = (value: unknown): value is TakenAnswers[string] =>
  isRecord(value) && isRecord(value.pushed) && isRecord(value.server);
const isLostEdit = (value: unknown): value is LostEdit =>
  isRecord(value) && typeof value.id === 'string' && typeof value.path === 'string' && typeof value.reason === 'string';

/** The kept maps, holding what an earlier release kept on the device until the records are read. */
export function createKeptStates(options: KeptOnDeviceOptions): KeptStates {
  return {
    sent: new KeptMap('sent', options.keepSentStates, isSentStates),
    deferred: new KeptMap(
      'deferred',
      options.keepDeferredMasterStates,
      isRecord as (value: unknown) => value is SyncDocument,
    ),
    answers: new KeptMap('answers', options.keepAnswers, isTakenAnswer),
    lost: new KeptMap('lost', undefined, isLostEdit),
  };
}

const all = (kept: KeptStates) => [kept.sent, kept.deferred, kept.answers, kept.lost];

/** Reads the kept maps from the replication's records, once; the lost edits kept are reported again. */
export function readKeptStates<RxDocType>(
  kept: KeptStates,
  protocol: ReplicationProtocol<RxDocType>,
  databaseToken: string,
  onLostEdits: ((lost: LostEdit[]) => void) | undefined,
): Promise<unknown> {
  const records = metaInstanceOf(protocol);
  kept.reading ??= Promise.all([
    kept.sent.attach(new KeptRecord(records, databaseToken, 'sent')),
    kept.deferred.attach(new KeptRecord(records, databaseToken, 'deferred')),
    kept.answers.attach(new KeptRecord(records, databaseToken, 'answers')),
    kept.lost.attach(new KeptRecord(records, databaseToken, 'lost')).then(() => {
      if (kept.lost.size > 0) onLostEdits?.([...kept.lost.values()]);
    }),
  ]);
  return kept.reading;
}

/** Resolves once every change to the kept maps so far is stored. */
export function keptStored(kept: KeptStates): Promise<unknown> {
  return Promise.all(all(kept).map((map) => map.stored()));
}

/** The records are closed: what changes from now on stays in memory. */
export function detachKeptStates(kept: KeptStates): void {
  for (const map of all(kept)) map.detach();
}

/** Keeps the lost edits a push's answer reports, the latest last; returns them without repeats. */
export function keepLostEdits(kept: KeptStates, reported: LostEdit[]): LostEdit[] {
  // Rows sent again may lose the same value: the newer row's loss is what the user last tried.
  const lost = [...new Map(reported.map((edit) => [`${edit.id} ${edit.path}`, edit])).values()];
  for (const edit of lost) {
    const key = `${edit.id} ${edit.path}`;
    kept.lost.delete(key);
    kept.lost.set(key, edit);
  }
  for (const key of [...kept.lost.keys()].slice(0, Math.max(0, kept.lost.size - MAX_KEPT_LOST))) kept.lost.delete(key);
  return lost;
}

/** Forgets the lost edits `seen` tells (the user has seen them): kept no more. */
export function forgetLostEdits(kept: KeptStates, seen: (edit: LostEdit) => boolean): void {
  for (const [key, edit] of kept.lost) if (seen(edit)) kept.lost.delete(key);
}
