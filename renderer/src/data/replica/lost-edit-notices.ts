import type { LostEdit } from '@shared/sync';
import { BehaviorSubject } from 'rxjs';
import type { ReplicaSync } from '../database';
import type { RememberedValues } from './memory';

/** Lost edits kept at the most (the oldest go first): a value each, so a few hundred records' worth. */
const MAX_LOST = 1_000;

/** Offline edits the server did not keep, remembered across restarts until the user has seen them. */
export class LostEditNotices {
  readonly lost$: BehaviorSubject<LostEdit[]>;

  constructor(
    private readonly remembered: RememberedValues,
    private readonly sync: ReplicaSync,
  ) {
    this.lost$ = new BehaviorSubject(remembered.recall<LostEdit[]>('lost', []));
  }

  remember(lost: LostEdit[]): void {
    // One entry per record and value, the latest: a value edited offline and lost again (or a push
    // sent again) replaces the earlier entry, which no longer says what the user last tried.
    const newer = new Set(lost.map((edit) => `${edit.id} ${edit.path}`));
    const kept = this.lost$.value.filter((edit) => !newer.has(`${edit.id} ${edit.path}`));
    this.keep([...kept, ...lost].slice(-MAX_LOST));
  }

  /**
   * Forgets every lost edit (the user has seen the notice), here and in the replications' records,
   * which keep them for an app ended before this device's memory had them.
   */
  dismissAll(): void {
    this.keep([]);
    this.sync.forgetLost(() => true);
  }

  /** Forgets the lost edits of one record, or only the one of its value at `path` (the user has seen them). */
  dismiss(recordId: string, path?: string): void {
    const seen = (edit: LostEdit) => edit.id === recordId && (path === undefined || edit.path === path);
    this.keep(this.lost$.value.filter((edit) => !seen(edit)));
    this.sync.forgetLost(seen);
  }

  /** Remembers `next` as the lost edits and shows it. */
  private keep(next: LostEdit[]): void {
    this.remembered.keep('lost', next);
    this.lost$.next(next);
  }
}
