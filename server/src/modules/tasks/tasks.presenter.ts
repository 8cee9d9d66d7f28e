import type { Task } from '@shared/api/tasks';
import type { Queryable } from '../../platform/db/db';
import * as repo from './tasks.repo';

/** Tasks with their assignees, in the order given. */
export async function presentTasks(
  db: Queryable,
  organizationId: string,
  rows: readonly repo.TaskRow[],
): Promise<Task[]> {
  const assignees = await repo.listAssignees(
    db,
    organizationId,
    rows.map((row) => row.id),
  );
  return rows.map((row) => ({
    id: row.id,
    formId: row.form_id,
    statusId: row.status_id,
    title: row.title,
    description: row.description,
    fields: row.fields,
    assignees: assignees
      .filter((a) => a.task_id === row.id)
      .map((a) => ({
        userId: a.user_id,
        source: a.source,
        delegated_from_user_id: a.delegated_from_user_id,
        pending_review: a.pending_review,
        addedAt: a.added_at.toISOString(),
      })),
    createdBy: row.created_by,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  }));
}
