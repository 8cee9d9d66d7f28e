import type { GoneRecord, LostEdit, SyncDocument } from '@shared/sync';
import { z } from 'zod';
import type { AuthContext } from '../../platform/auth/auth-context';
import { Problem } from '../../platform/http/problem';
import { defineSyncCollection } from '../../platform/sync/sync-collection';
import {
  clientChanges,
  clientWins,
  createdOrMerged,
  keptValuesWithoutBase,
  keptWithoutBase,
  knownBase,
  lostWithRecord,
  refusedAsLost,
  refusedValuesAsLost,
  type SyncSource,
  sameValue,
  tombstone,
  withValuesLeftOut,
} from '../../platform/sync/sync-source';
import { acknowledgeDelegation } from './substitutes.service';
import { taskVisibility } from './tasks.policy';
import { presentTasks } from './tasks.presenter';
import { lockTask, taskChanges, taskExists } from './tasks.repo';
import * as tasks from './tasks.service';

/** The users assigned in a task document, sorted (the set a replica edits). */
function assigneeIds(document: object | null | undefined): string[] {
  const assignees = (document as { assignees?: unknown } | null | undefined)?.assignees;
  const list = Array.isArray(assignees) ? (assignees as { userId?: unknown }[]) : [];
  return [...new Set(list.map((assignee) => String(assignee?.userId)))].sort();
}

/** What a pushed live task must look like before any service sees it (the services check the values). */
const PushedTask = z.object({
  formId: z.uuid(),
  title: z.string().optional(),
  description: z.string().nullable().optional(),
  statusId: z.uuid().nullable().optional(),
  fields: z.record(z.string(), z.unknown()).optional(),
  assignees: z
    .array(z.object({ userId: z.uuid(), pending_review: z.boolean().optional() }))
    .max(1_000)
    .optional(),
});

/** A task as an edit pushed for it has it, to name it once it is not on the server. */
function taskRecord(document: SyncDocument): GoneRecord {
  return { name: String(document.title ?? ''), formId: String(document.formId) };
}

/** The values of a task document that a replica edits (the rest are the server's). */
const TASK_VALUES = ['title', 'description', 'statusId', 'fields', 'assignees'] as const;

/** A task document's values as a replica edits them, by lost-edit path. */
function taskValues(document: object): Map<string, unknown> {
  const doc = document as Record<string, unknown>;
  const values = new Map<string, unknown>([
    ['title', doc.title],
    ['description', doc.description],
    ['statusId', doc.statusId],
  ]);
  for (const [fieldId, value] of Object.entries((doc.fields as Record<string, unknown>) ?? {})) {
    values.set(`fields.${fieldId}`, value);
  }
  values.set('assignees', assigneeIds(doc));
  return values;
}

/**
 * Assignees edited offline, merged per user: one the client added is assigned unless the server
 * has them already, one it removed is unassigned unless the server did so too. Such changes never
 * contradict each other; a refused one (an inactive user, say) is reported lost.
 */
async function mergeAssignees(
  deps: tasks.TasksDeps,
  auth: AuthContext,
  id: string,
  ids: { base: string[]; current: string[]; next: string[] },
  lost: LostEdit[],
) {
  const base = new Set(ids.base);
  const current = new Set(ids.current);
  const next = new Set(ids.next);
  for (const userId of next) {
    if (base.has(userId) || current.has(userId)) continue;
    await refusedAsLost(lost, { id, path: `assignees.${userId}`, attempted: true, kept: false }, () =>
      tasks.assignManually(deps, auth, id, userId),
    );
  }
  for (const userId of base) {
    if (next.has(userId) || !current.has(userId)) continue;
    await refusedAsLost(lost, { id, path: `assignees.${userId}`, attempted: false, kept: true }, () =>
      tasks.unassign(deps, auth, id, userId),
    );
  }
}

/** Whether the document has the user's review of changes made while they were away pending. */
function reviewPending(document: object, userId: string): boolean {
  const assignees = (document as { assignees?: unknown }).assignees;
  const list = Array.isArray(assignees) ? (assignees as { userId?: unknown; pending_review?: unknown }[]) : [];
  return list.some((assignee) => assignee?.userId === userId && assignee.pending_review === true);
}

/**
 * Whether a pushed tombstone is the user's deletion of a task they had: made against a live base,
 * or against a tombstone (the replica learned the task was hidden only after the user deleted it:
 * RxDB then keeps the user's deleted document, values and all, and pushes it against the
 * tombstone). A bare tombstone sent again against one is nobody's deletion.
 */
function deletedByUser(base: SyncDocument | null, next: SyncDocument): boolean {
  if (base === null) return false;
  return !base._deleted || (typeof next.title === 'string' && base.title === undefined);
}

/**
 * Three-way merge of a task edited offline (SPEC: base = assumedMasterState): a field the client
 * changed and the server did not takes the client's value; a field changed on both sides keeps
 * the server's and is reported lost; a status change is re-validated as a transition.
 */
async function pushTask(
  deps: tasks.TasksDeps,
  auth: AuthContext,
  pushedBase: SyncDocument | null,
  pushed: SyncDocument,
  lost: LostEdit[],
): Promise<void> {
  const id = pushed.id;
  // Held until the push of this task commits (`appliedTogether`); live, whoever may see it.
  const live = await lockTask(deps.db, auth.organizationId, id);
  const current = await tasks.getTask(deps, auth, id).catch((error: unknown) => {
    if (error instanceof Problem && error.status === 404) return undefined;
    throw error;
  });
  const next = withValuesLeftOut(pushed, pushedBase ?? current, TASK_VALUES);
  if (!current) {
    if (next._deleted) {
      // Still there but no longer shared with the user: the deletion is not theirs to make, and
      // they are told, as for any edit of it. Else deleted on both sides.
      if (live && deletedByUser(pushedBase, next)) {
        lost.push({
          id,
          path: '_deleted',
          attempted: true,
          kept: null,
          reason: 'gone_on_server',
          record: taskRecord(next),
        });
      }
      return;
    }
    // A task made and deleted on the device before it was sent, then taken back (an undo): its
    // deletion was pushed as a tombstone the server had nothing for, so it is made now, as sent.
    const neverSent = pushedBase?._deleted && !(await taskExists(deps.db, auth.organizationId, id));
    if (pushedBase !== null && !neverSent) {
      // An undo of a deletion (the base is a tombstone): the task comes back if it is deleted here,
      // not merely hidden, and theirs to delete; then their values merge onto it.
      if (pushedBase._deleted) {
        let restored = false;
        const before = lost.length;
        await refusedAsLost(
          lost,
          { id, path: '_deleted', attempted: false, kept: true, record: taskRecord(next) },
          async () => {
            restored = await tasks.restoreDeletedTask(deps, auth, id);
          },
        );
        if (restored) {
          const base = typeof pushedBase.title === 'string' ? pushedBase : await tasks.getTask(deps, auth, id);
          return pushTask(deps, auth, { ...base, _deleted: false } as SyncDocument, pushed, lost);
        }
        if (lost.length > before) return;
      }
      // Deleted on the server meanwhile, or no longer shared with the user: the server wins, and
      // the user is told what they changed.
      return lostWithRecord(lost, id, taskRecord(next), { base: taskValues(pushedBase), next: taskValues(next) });
    }
    return createdOrMerged(
      async () => {
        const created = await tasks.createTask(deps, auth, {
          id,
          formId: String(next.formId),
          title: String(next.title),
          description: typeof next.description === 'string' ? next.description : '',
          fields: (next.fields as Record<string, unknown>) ?? {},
        });
        // People assigned on the device beyond those the form's fields assign.
        await mergeAssignees(
          deps,
          auth,
          id,
          { base: [], current: assigneeIds(created), next: assigneeIds(next) },
          lost,
        );
        // Moved on the device before it was sent: a transition from the initial status, checked
        // as one (and firing `task.status_changed`); a move the workflow refuses is reported.
        if (typeof next.statusId === 'string' && next.statusId !== created.statusId) {
          const attempted = next.statusId;
          await refusedAsLost(lost, { id, path: 'statusId', attempted, kept: created.statusId }, () =>
            tasks.executeTaskTransition(deps, auth, id, { statusId: attempted }),
          );
        }
      },
      async () => (await tasks.getTask(deps, auth, id).catch(() => undefined)) !== undefined,
      () => pushTask(deps, auth, pushedBase, pushed, lost),
    );
  }
  const base = knownBase(pushedBase, current, next);
  if (base === null) {
    if (next._deleted) return keptWithoutBase(lost, { id, path: '_deleted' }, { current: false, next: true });
    keptValuesWithoutBase(lost, id, { current: taskValues(current), next: taskValues(next) });
    return;
  }
  if (next._deleted && !base._deleted) {
    // A task changed on the server since the client's base is not deleted from under that change
    // (people assigned or taken off meanwhile included).
    const changed =
      ['title', 'description', 'statusId', 'fields'].some(
        (key) => !sameValue(current[key as keyof typeof current], base[key]),
      ) || !sameValue(assigneeIds(current), assigneeIds(base));
    if (changed) lost.push({ id, path: '_deleted', attempted: true, kept: false, reason: 'changed_on_server' });
    // Not the user's to delete (neither its author nor one the form is open to): said so, as a deletion.
    else
      await refusedAsLost(lost, { id, path: '_deleted', attempted: true, kept: false }, () =>
        tasks.deleteTask(deps, auth, id),
      );
    return;
  }
  const won = clientChanges(
    lost,
    id,
    { base: taskValues(base), current: taskValues(current), next: taskValues(next) },
    (path) => path === 'title' || path === 'description' || path.startsWith('fields.'),
  );
  const patch: { title?: string; description?: string; fields?: Record<string, unknown> } = {};
  const changedFields: Record<string, unknown> = {};
  for (const [path, value] of won) {
    if (path === 'title' || path === 'description') patch[path] = String(value);
    else changedFields[path.slice('fields.'.length)] = value;
  }
  if (Object.keys(changedFields).length > 0) patch.fields = changedFields;
  if (won.size > 0) {
    const currentValues = taskValues(current);
    const changed = [...won].map(([path, attempted]) => ({ path, attempted, kept: currentValues.get(path) ?? null }));
    await refusedValuesAsLost(lost, id, changed, () => tasks.updateTask(deps, auth, id, patch));
  }
  // After the fields, whose user values assign people themselves.
  const assignedNow = patch.fields ? assigneeIds(await tasks.getTask(deps, auth, id)) : assigneeIds(current);
  await mergeAssignees(
    deps,
    auth,
    id,
    { base: assigneeIds(base), current: assignedNow, next: assigneeIds(next) },
    lost,
  );
  // Acknowledged on the device (only the user's own review: others' flags are the server's).
  if (reviewPending(base, auth.userId) && !reviewPending(next, auth.userId) && reviewPending(current, auth.userId)) {
    await refusedAsLost(
      lost,
      { id, path: `assignees.${auth.userId}.pending_review`, attempted: false, kept: true },
      () => acknowledgeDelegation(deps, auth, id),
    );
  }
  if (
    clientWins(lost, { id, path: 'statusId' }, { base: base.statusId, current: current.statusId, next: next.statusId })
  ) {
    await refusedAsLost(lost, { id, path: 'statusId', attempted: next.statusId, kept: current.statusId }, () =>
      tasks.executeTaskTransition(deps, auth, id, { statusId: String(next.statusId) }),
    );
  }
}

/** Whether a push ended as sent: both deleted, or the same values (assignees as a set). */
function sameTaskState(master: SyncDocument, pushed: SyncDocument): boolean {
  if (master._deleted && pushed._deleted) return true;
  const state = (task: SyncDocument) => ({
    title: task.title,
    description: task.description,
    fields: task.fields,
    statusId: task.statusId,
    assignees: assigneeIds(task),
    _deleted: task._deleted,
  });
  return sameValue(state(master), state(pushed));
}

/** Tasks: pulled as the caller sees them (`tasks.policy`), written offline through the tasks service. */
export function tasksSyncSource(deps: tasks.TasksDeps): SyncSource {
  return defineSyncCollection({
    collection: 'tasks',
    pull: {
      changes: (db, auth, checkpoint, limit) => taskChanges(db, taskVisibility(auth), checkpoint, limit),
      visible: (_auth, row) => row.visible,
      async present(db, auth, rows) {
        const presented = await presentTasks(db, auth, rows);
        // The presented tasks are this pull's own objects: flagged rather than copied.
        return new Map(presented.map((task) => [task.id, Object.assign(task, { _deleted: false }) as SyncDocument]));
      },
    },
    push: {
      deps,
      shape: PushedTask,
      noun: 'task',
      values: taskValues,
      record: (_deps, _auth, document) => taskRecord(document),
      master: (held, _auth, id, asCaller) =>
        asCaller((view) =>
          tasks.getTask(held, view, id).then(
            (task) => ({ ...task, _deleted: false }) as SyncDocument,
            () => tombstone(id),
          ),
        ),
      apply: (held, auth, { base, next, lost }) => pushTask(held, auth, base, next, lost),
      sameState: sameTaskState,
    },
  });
}
