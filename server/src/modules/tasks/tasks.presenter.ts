import type { Task } from '@shared/api/tasks';
import type { Actor } from '../../platform/auth/actor';
import type { Queryable } from '../../platform/db/db';
import { rowLabels } from '../directories/directories.service';
import { type FormDefinition, getFormDefinition } from '../forms/forms.service';
import type { MessageRow } from './task-activity.repo';
import * as repo from './tasks.repo';

type Labels = Task['labels'];

const ROW_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether any value may be a `table` choice: those are row ids (UUIDs), alone or in a list. */
function mayChooseRows(rows: readonly repo.TaskRow[]): boolean {
  const isRowId = (value: unknown) => typeof value === 'string' && ROW_ID.test(value);
  return rows.some((row) =>
    Object.values(row.fields).some((value) => (Array.isArray(value) ? value.some(isRowId) : isRowId(value))),
  );
}

/** The row ids a `table` value holds (one id, or a list when the field allows several). */
function chosenRowIds(value: unknown): string[] {
  return (Array.isArray(value) ? value : value ? [value] : []).filter((v): v is string => typeof v === 'string');
}

/**
 * Labels of the rows chosen in `table` fields (display column, or the directory's tree display
 * column). One lookup per directory and display column for all the tasks given: a page of a
 * thousand tasks must not cost a query per task.
 */
async function tableLabels(db: Queryable, viewer: Actor, rows: readonly repo.TaskRow[]): Promise<Map<string, Labels>> {
  const { organizationId } = viewer;
  const definitions = new Map<string, FormDefinition | undefined>();
  // Without a row id among the values no labels can be due, and the forms need not be read.
  if (!mayChooseRows(rows)) return new Map();
  for (const formId of new Set(rows.map((row) => row.form_id))) {
    definitions.set(formId, await getFormDefinition(db, organizationId, formId));
  }
  const lookups = new Map<
    string,
    { directoryId: string; displayColumn: string | null; ids: Set<string>; found?: Map<string, Labels[string][number]> }
  >();
  const lookupOf = (directoryId: string, displayColumn: string | null) => {
    const key = JSON.stringify([directoryId, displayColumn]);
    let lookup = lookups.get(key);
    if (!lookup) {
      lookup = { directoryId, displayColumn, ids: new Set() };
      lookups.set(key, lookup);
    }
    return lookup;
  };
  for (const row of rows) {
    for (const field of definitions.get(row.form_id)?.fields ?? []) {
      if (field.type !== 'table' || !field.directory_id) continue;
      const lookup = lookupOf(field.directory_id, field.display_column);
      for (const id of chosenRowIds(row.fields[field.id])) lookup.ids.add(id);
    }
  }
  // One after another: inside a transaction the queries share one connection.
  for (const lookup of lookups.values()) {
    if (lookup.ids.size === 0) continue;
    const labels = await rowLabels(db, viewer, lookup.directoryId, lookup.displayColumn, [...lookup.ids]);
    lookup.found = new Map([...labels].map(([id, { label, deleted }]) => [id, { id, label, deleted }]));
  }
  const result = new Map<string, Labels>();
  for (const row of rows) {
    const labels: Labels = {};
    for (const field of definitions.get(row.form_id)?.fields ?? []) {
      if (field.type !== 'table' || !field.directory_id) continue;
      const ids = chosenRowIds(row.fields[field.id]);
      if (ids.length === 0) continue;
      const found = lookupOf(field.directory_id, field.display_column).found;
      labels[field.id] = ids.map((id) => ({
        id,
        label: found?.get(id)?.label ?? '',
        deleted: found?.get(id)?.deleted ?? true,
      }));
    }
    result.set(row.id, labels);
  }
  return result;
}

/**
 * Tasks with their assignees and the labels of their chosen rows, in the order given. A row that
 * says `assigned: false` (its query knew it has no assignees) is not looked up.
 */
export async function presentTasks(
  db: Queryable,
  viewer: Actor,
  rows: readonly (repo.TaskRow & { assigned?: boolean })[],
): Promise<Task[]> {
  const { organizationId } = viewer;
  const assignees = new Map<string, Task['assignees']>();
  const assigned = rows.filter((row) => row.assigned !== false).map((row) => row.id);
  for (const a of assigned.length > 0 ? await repo.listAssignees(db, organizationId, assigned) : []) {
    let list = assignees.get(a.task_id);
    if (!list) {
      list = [];
      assignees.set(a.task_id, list);
    }
    list.push({
      userId: a.user_id,
      source: a.source,
      delegated_from_user_id: a.delegated_from_user_id,
      pending_review: a.pending_review,
      addedAt: a.added_at.toISOString(),
    });
  }
  const labels = await tableLabels(db, viewer, rows);
  return rows.map((row) => ({
    id: row.id,
    formId: row.form_id,
    statusId: row.status_id,
    title: row.title,
    description: row.description,
    fields: row.fields,
    labels: labels.get(row.id) ?? {},
    assignees: assignees.get(row.id) ?? [],
    createdBy: row.created_by,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  }));
}

/** A message of a task's chat as the API answers it. */
export function presentMessage(row: MessageRow) {
  return {
    id: row.id,
    taskId: row.task_id,
    authorUserId: row.author_user_id,
    botId: row.bot_id,
    automationId: row.automation_id,
    body: row.body,
    mentions: row.mentioned_user_ids,
    createdAt: row.created_at.toISOString(),
  };
}
