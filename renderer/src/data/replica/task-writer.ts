import { type AssigneesChange, reassigned } from '../assignees';
import type { OrbitaDatabase } from '../database';
import { RecordGoneError } from '../replica-errors';
import type { TaskDocument } from '../schemas';
import { removedRecord, writeBackDeleted } from './deleted-records';
import type { PendingChanges } from './pending-changes';

/** A task as a page creates it: the fields it cannot do without, the rest defaulted. */
export type NewTask = Required<Pick<TaskDocument, 'id' | 'formId' | 'statusId' | 'title'>> & TaskDocument;

/**
 * A change of a task made on a page: values, and people put on or taken off (`assign`, applied to
 * the assignees the task has when written, so that one a pulled change added meanwhile stays).
 */
export type TaskChange = Partial<Pick<TaskDocument, 'title' | 'description' | 'statusId' | 'fields' | 'assignees'>> & {
  assign?: AssigneesChange;
};

/**
 * A task as `change` leaves it (its fields merge into the task's values). A task deleted or hidden
 * from the user while the edit was being saved — a pulled deletion came first — is not written to:
 * the edit would be a deletion carrying values, which the server takes for nothing to report.
 */
export function changedTask(current: TaskDocument & { _deleted?: boolean }, change: TaskChange): TaskDocument {
  if (current._deleted) throw new RecordGoneError(current.id);
  const { assign, ...values } = change;
  const changed = {
    ...current,
    ...values,
    fields: change.fields ? { ...current.fields, ...change.fields } : current.fields,
  };
  return assign ? { ...changed, assignees: reassigned(current.assignees ?? [], assign) } : changed;
}

/** Writes tasks on this device, each counted as a pending push until the server accepts it. */
export class TaskWriter {
  constructor(
    private readonly db: OrbitaDatabase,
    private readonly userId: string,
    private readonly pending: PendingChanges,
  ) {}

  /** Creates a task on this device; it reaches the server with the next push. */
  async createTask(task: NewTask): Promise<void> {
    const now = new Date().toISOString();
    await this.pending.track(task.id, () =>
      this.db.tasks.insert({
        description: '',
        fields: {},
        labels: {},
        assignees: [],
        createdBy: this.userId,
        createdAt: now,
        updatedAt: now,
        ...task,
      }),
    );
  }

  /** Changes a task on this device (fields merge into its values); it reaches the server with the next push. */
  async changeTask(id: string, change: TaskChange): Promise<void> {
    const doc = await this.db.tasks.findOne(id).exec();
    if (!doc) throw new RecordGoneError(id);
    await this.pending.track(id, () => doc.incrementalModify((current: TaskDocument) => changedTask(current, change)));
  }

  /**
   * The user has seen what their substitute did on the task: their review flag clears on this
   * device and the acknowledgement reaches the server with the next push.
   */
  async acknowledgeDelegation(id: string): Promise<void> {
    const doc = await this.db.tasks.findOne(id).exec();
    if (!doc) throw new RecordGoneError(id);
    await this.pending.track(id, () =>
      doc.incrementalModify((current: TaskDocument) => {
        if ((current as { _deleted?: boolean })._deleted) throw new RecordGoneError(id);
        return {
          ...current,
          assignees: (current.assignees ?? []).map((assignee) =>
            assignee.userId === this.userId ? { ...assignee, pending_review: false } : assignee,
          ),
        };
      }),
    );
  }

  /** Deletes a task on this device; the deletion reaches the server with the next push. */
  async removeTask(id: string): Promise<void> {
    const doc = await this.db.tasks.findOne(id).exec();
    if (!doc) throw new RecordGoneError(id);
    await this.pending.track(id, () => doc.incrementalModify(removedRecord));
  }

  /**
   * Takes back a deletion made on this device (an undo; `writeBackDeleted`): it reaches the
   * server with the next push, which brings the task back there if the deletion had reached it.
   */
  async restoreTask(deleted: TaskDocument): Promise<boolean> {
    return this.pending.track(deleted.id, () => writeBackDeleted(this.db.tasks, deleted));
  }
}
