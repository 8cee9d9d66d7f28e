import { BehaviorSubject } from 'rxjs';
import type { SyncDirection, SyncTrouble } from '../socket-replication';
import type { RememberedValues } from './memory';

export interface ReplicaStatus {
  /** Connected to the server's sync stream. */
  online: boolean;
  /** The first connection since opening is still being tried: neither online nor known offline yet. */
  connecting: boolean;
  /** The first pull since opening has finished (lists are complete). */
  ready: boolean;
  /** Tasks and directory rows changed on this device and not yet accepted by the server. */
  pending: number;
  /** Their ids, so that screens can mark each one. */
  pendingIds: ReadonlySet<string>;
  /** The server ended the session: replication stopped until the next sign-in. */
  signedOut: boolean;
  /** Why changes made here do not go (the server's problem), until they do; they are tried again meanwhile. */
  sendFailure?: SyncTrouble;
  /** Why the server's changes do not come (the server's problem), until they do; tried again meanwhile. */
  receiveFailure?: SyncTrouble;
  /**
   * When this device last held everything the server had for the user (ms since the epoch): the
   * moment it stopped being connected after a completed pull, kept across restarts. Connected
   * after the first pull, it is up to date. Undefined: never synced here.
   */
  syncedAt?: number;
}

/**
 * While in sync, now is remembered this often as what the data is as of: an app killed (it never
 * left the synced state in an orderly way) says "as of" no earlier than this before the end.
 */
export const SYNCED_AT_EVERY_MS = 60_000;

/** Connected, with the first pull since opening done: every change of the server arrives at once. */
function inSync(status: ReplicaStatus): boolean {
  return status.online && status.ready && !status.signedOut;
}

/** What the status keeps beside the status itself while the replica is open. */
interface StatusBookkeeping {
  /** Why pulls or pushes of a collection fail now, by direction and collection (`<direction> <collection>`). */
  readonly troubles: Map<string, SyncTrouble>;
  /** Remembers now every `syncedAtEveryMs` while in sync (`keepSyncedAt`). */
  keepingSyncedAt?: ReturnType<typeof setInterval>;
  /** The replica was closed: now is no longer remembered on a timer. */
  ended: boolean;
}

/** What the interface shows about a replica's sync (`status$`), and when its data is as of. */
export class SyncStatus {
  readonly status$: BehaviorSubject<ReplicaStatus>;
  private readonly bookkeeping: StatusBookkeeping = { troubles: new Map(), ended: false };

  constructor(
    initial: ReplicaStatus,
    private readonly remembered: RememberedValues,
    private readonly syncedAtEveryMs = SYNCED_AT_EVERY_MS,
  ) {
    this.status$ = new BehaviorSubject(initial);
  }

  update(change: Partial<ReplicaStatus>): void {
    const before = this.status$.value;
    const next = { ...before, ...change };
    // Leaving the synced state (connected after a completed pull): that moment is what the data
    // shown from now on is as of.
    if (inSync(before) && !inSync(next)) next.syncedAt = this.keepSyncedAt();
    this.keepSyncedAtWhileInSync(inSync(next));
    this.status$.next(next);
  }

  /**
   * Records how the last pull or push of a collection went (`key`: direction and collection); the
   * status says the first reason of each direction still standing.
   */
  troubled(key: string, problem: SyncTrouble | undefined): void {
    const { troubles } = this.bookkeeping;
    if (problem) troubles.set(key, problem);
    else if (!troubles.delete(key)) return;
    const first = (direction: SyncDirection) => [...troubles].find(([where]) => where.startsWith(`${direction} `))?.[1];
    const change = { sendFailure: first('send'), receiveFailure: first('receive') };
    const { sendFailure, receiveFailure } = this.status$.value;
    if (change.sendFailure !== sendFailure || change.receiveFailure !== receiveFailure) this.update(change);
  }

  /** The replica is closing: now is remembered a last time if in sync, and no longer on a timer. */
  end(): void {
    this.bookkeeping.ended = true;
    if (inSync(this.status$.value)) this.keepSyncedAt();
    if (this.bookkeeping.keepingSyncedAt) clearInterval(this.bookkeeping.keepingSyncedAt);
  }

  /** Starts or stops remembering now while in sync (an app killed then never leaves it in order). */
  private keepSyncedAtWhileInSync(isInSync: boolean): void {
    const { bookkeeping } = this;
    if (isInSync && !bookkeeping.keepingSyncedAt && !bookkeeping.ended) {
      bookkeeping.keepingSyncedAt = setInterval(() => this.keepSyncedAt(), this.syncedAtEveryMs);
    } else if (!isInSync && bookkeeping.keepingSyncedAt) {
      clearInterval(bookkeeping.keepingSyncedAt);
      bookkeeping.keepingSyncedAt = undefined;
    }
  }

  /** Now, remembered as the last moment this device held everything the server had. */
  private keepSyncedAt(): number {
    const now = Date.now();
    this.remembered.keep('syncedAt', now);
    return now;
  }
}
