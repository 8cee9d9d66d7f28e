import type { SyncDocument } from '@shared/sync';

/** The version of a server state: its `updatedAt`, later for every write of a record. */
export function versionOf(document: SyncDocument): string | undefined {
  return typeof document.updatedAt === 'string' && document.updatedAt !== '' ? document.updatedAt : undefined;
}

/** A version below which (or at which, when `inclusive`) a state is older than a push's outcome. */
interface OutcomeBound {
  version: string;
  inclusive: boolean;
}

/**
 * Per document, the newest version received from the server, and the bound below which a state is
 * older than the outcome of its last answered push. RxDB writes the states it is handed in a queue
 * of its own, so one received before a push may come to be written after the push's answer.
 */
export class ReceivedVersions {
  private readonly newest = new Map<string, string>();
  private readonly outcomeBounds = new Map<string, OutcomeBound>();

  constructor(private readonly idOf: (document: Record<string, unknown>) => string) {}

  /** Notes the versions of states received by a pull or a stream message. */
  noteReceived(documents: readonly SyncDocument[]): void {
    for (const document of documents) {
      const version = versionOf(document);
      const id = this.idOf(document);
      if (!version) continue;
      if (version > (this.newest.get(id) ?? '')) this.newest.set(id, version);
      // Received after a push's answer, so as new as its outcome: a push that changed nothing left
      // the version as it was (a record shared again keeps its `updatedAt`).
      const bound = this.outcomeBounds.get(id);
      if (bound?.inclusive && version === bound.version) this.outcomeBounds.set(id, { version, inclusive: false });
    }
  }

  /** After a push's answer: the states received before it are older than its outcome. */
  notePushOutcome(ids: readonly string[], conflicts: readonly SyncDocument[]): void {
    const answered = new Map(conflicts.map((document) => [this.idOf(document), versionOf(document)]));
    for (const id of ids) {
      // With a conflict, the master state as of the answer; as sent, newer than any received.
      const merged = answered.get(id);
      const bound = answered.has(id)
        ? merged && { version: merged, inclusive: false }
        : this.newest.has(id) && { version: this.newest.get(id) as string, inclusive: true };
      if (bound && bound.version >= (this.outcomeBounds.get(id)?.version ?? '')) this.outcomeBounds.set(id, bound);
    }
  }

  /** Whether a state is older than the outcome of its document's last answered push. */
  isOlderThanPushOutcome(document: Record<string, unknown>): boolean {
    const bound = this.outcomeBounds.get(this.idOf(document));
    const version = versionOf(document as SyncDocument);
    if (!bound || !version) return false;
    return bound.inclusive ? version <= bound.version : version < bound.version;
  }
}
