import type { Task } from '@shared/api/tasks';
import type { Queryable } from '../../platform/db/db';
import { rowLabels } from '../directories/directories.service';
import { type FormDefinition, getFormDefinition } from '../forms/forms.service';
import * as repo from './tasks.repo';

type Labels = Task['labels'];

/** Labels of the rows chosen in `table` fields (display column, or the directory's tree display column). */
async function tableLabels(
  db: Queryable,
  organizationId: string,
  rows: readonly repo.TaskRow[],
): Promise<Map<string, Labels>> {
  const definitions = new Map<string, FormDefinition | undefined>();
  for (const formId of new Set(rows.map((row) => row.form_id))) {
    definitions.set(formId, await getFormDefinition(db, organizationId, formId));
  }
  const result = new Map<string, Labels>();
  for (const row of rows) {
    const labels: Labels = {};
    for (const field of definitions.get(row.form_id)?.fields ?? []) {
      if (field.type !== 'table' || !field.directory_id) continue;
      const value = row.fields[field.id];
      const ids = (Array.isArray(value) ? value : value ? [value] : []).filter(
        (v): v is string => typeof v === 'string',
      );
      if (ids.length === 0) continue;
      const found = await rowLabels(db, organizationId, field.directory_id, field.display_column, ids);
      labels[field.id] = ids.map((id) => ({
        id,
        label: found.get(id)?.label ?? '',
        deleted: found.get(id)?.deleted ?? true,
      }));
    }
    result.set(row.id, labels);
  }
  return result;
}

/** Tasks with their assignees and the labels of their chosen rows, in the order given. */
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
  const labels = await tableLabels(db, organizationId, rows);
  return rows.map((row) => ({
    id: row.id,
    formId: row.form_id,
    statusId: row.status_id,
    title: row.title,
    description: row.description,
    fields: row.fields,
    labels: labels.get(row.id) ?? {},
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
