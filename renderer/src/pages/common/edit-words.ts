import type { Directory } from '@shared/api/directories';
import type { Form } from '@shared/api/forms';
import type { LostEdit } from '@shared/sync';
import type { TFunction } from 'i18next';
import { useTranslation } from 'react-i18next';
import { problemWords } from '../../problem-words';
import { usePeople, useValueNames } from '../tasks/field-input';
import { fieldValueText } from '../tasks/field-values';

/** A value of a lost edit as the user reads it. */
export function shownEditValue(value: unknown): string {
  if (value === null || value === undefined || value === '') return '—';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** How a task's lost edits read: what each changed (a field, the status, an assignee) and its values. */
export interface EditWords {
  label: (edit: LostEdit) => string;
  show: (edit: LostEdit, value: unknown) => string;
}

/**
 * The words for the lost edits of a task of `form` (fields and statuses by name, people by name);
 * without the form (no longer on the device), fields are named by their ids.
 */
export function useTaskEditWords(form: Pick<Form, 'fields' | 'statuses'> | undefined): EditWords {
  const { t } = useTranslation();
  const { userName } = usePeople();
  const fields = form?.fields ?? [];
  const names = useValueNames(fields);
  const assigneeOf = (edit: LostEdit) => /^assignees\.(.+)$/.exec(edit.path)?.[1];
  return {
    label(edit) {
      if (edit.path === '_deleted') return t('task.deletion');
      if (edit.path === 'statusId') return t('tasks.status');
      if (edit.path === 'assignees') return t('task.assignees');
      const assignee = assigneeOf(edit);
      if (assignee) return t('task.assignee', { name: userName(assignee) });
      if (edit.path === 'title') return t('tasks.taskTitle');
      if (edit.path === 'description') return t('tasks.description');
      const fieldId = edit.path.replace(/^fields\./, '');
      return fields.find((f) => f.id === fieldId)?.name ?? fieldId;
    },
    show(edit, value) {
      if (edit.path === '_deleted') return value ? t('task.wasDeleted') : t('task.notDeleted');
      if (edit.path === 'statusId') return form?.statuses.find((s) => s.id === value)?.name ?? shownEditValue(value);
      if (edit.path === 'assignees' && Array.isArray(value)) {
        return value.length > 0 ? value.map((id) => userName(String(id))).join(', ') : t('task.noAssignees');
      }
      if (assigneeOf(edit)) return value ? t('task.assigned') : t('task.notAssigned');
      const field = fields.find((f) => `fields.${f.id}` === edit.path);
      return field ? fieldValueText(field, value, names) : shownEditValue(value);
    },
  };
}

/** What a lost edit of a directory row changed: a column by name, the place in the tree, the bindings. */
export function rowEditLabel(t: TFunction, directory: Pick<Directory, 'columns'> | undefined, edit: LostEdit): string {
  const cell = /^cells\.(\d+)$/.exec(edit.path);
  if (cell)
    return directory?.columns[Number(cell[1])]?.name ?? t('directories.column', { number: Number(cell[1]) + 1 });
  if (edit.path === 'parentId') return t('directories.moveTo');
  if (edit.path === 'parentRowIds') return t('directories.offeredUnder');
  if (edit.path === '_deleted') return t('directories.deleteRow');
  return t('directories.rowTitle');
}

/** A reason ended as a sentence (server details end so; the device's own words may not). */
export function asSentence(text: string): string {
  const trimmed = text.trim();
  return /[.!?…]$/.test(trimmed) ? trimmed : `${trimmed}.`;
}

/**
 * Why the server refused an edit: in the user's language where its problem code is known (the
 * server's words go with it where they say more), else the server's words.
 */
export function refusalText(t: TFunction, edit: Pick<LostEdit, 'code' | 'detail'>): string {
  return problemWords(t, edit, t('conflicts.refused'));
}
