import type { FormField } from '@shared/api/forms';
import { normalizeNumber } from '@shared/number';
import { Checkbox, DatePicker, Input, Select } from 'antd';
import dayjs from 'dayjs';
import { useTranslation } from 'react-i18next';
import { map } from 'rxjs';
import { useLive } from '../data/replica-context';

/** Field types edited on the task page and in the new-task dialog. */
export const EDITABLE = new Set(['text', 'number', 'date', 'checkbox', 'select', 'user', 'table']);

export interface People {
  users: { value: string; label: string }[];
  roles: { value: string; label: string }[];
  labels: { users: string; roles: string };
}

/** Rows of the field's directory (from the replica), labelled by `displayColumn` or the tree display column. */
function TableFieldInput({ field, ...control }: { field: FormField } & Record<string, unknown>) {
  const directoryId = field.directoryId ?? '';
  const directory = useLive(
    (r) =>
      r.db.directories
        .findOne(directoryId)
        .$.pipe(
          map(
            (doc) => doc?.toJSON() as { columns: { name: string }[]; tree_display_column_index?: number } | undefined,
          ),
        ),
    [directoryId],
  );
  const rows = useLive(
    (r) =>
      r.db.directory_rows
        .find({ selector: { directoryId } })
        .$.pipe(map((docs) => docs.map((doc) => doc.toJSON() as { id: string; cells: unknown[] }))),
    [directoryId],
  );
  const named = directory?.columns.findIndex((c) => c.name.toLowerCase() === (field.displayColumn ?? '').toLowerCase());
  const index = named !== undefined && named >= 0 ? named : (directory?.tree_display_column_index ?? 0);
  return (
    <Select
      {...control}
      aria-label={field.name}
      allowClear
      showSearch={{ optionFilterProp: 'label' }}
      mode={field.allow_multiple ? 'multiple' : undefined}
      loading={!rows}
      options={(rows ?? [])
        .map((row) => ({ value: row.id, label: String(row.cells[index] ?? '') }))
        .sort((a, b) => a.label.localeCompare(b.label))}
    />
  );
}

/**
 * An editor for a value of the field's type; the server normalises what is saved. Form.Item hands
 * `value`/`checked` and `onChange` to this component, which passes them to the control.
 */
export function FieldInput({
  field,
  people,
  ...control
}: { field: FormField; people: People } & Record<string, unknown>) {
  switch (field.type) {
    case 'table':
      return <TableFieldInput {...control} field={field} />;
    case 'user':
      // Values are `user:<id>` or `role:<id>`; a role stands for its current members.
      return (
        <Select
          {...control}
          aria-label={field.name}
          allowClear
          showSearch={{ optionFilterProp: 'label' }}
          mode={field.allow_multiple ? 'multiple' : undefined}
          options={[
            { label: people.labels.users, title: people.labels.users, options: people.users },
            { label: people.labels.roles, title: people.labels.roles, options: people.roles },
          ]}
        />
      );
    case 'number':
      return <Input {...control} inputMode="decimal" aria-label={field.name} />;
    case 'date':
      return <DatePicker {...control} aria-label={field.name} format="YYYY-MM-DD" />;
    case 'checkbox':
      return <Checkbox {...control} aria-label={field.name} />;
    case 'select':
      return (
        <Select
          {...control}
          aria-label={field.name}
          allowClear
          mode={field.allow_multiple ? 'multiple' : undefined}
          options={(field.options ?? []).map((option) => ({ value: option, label: option }))}
        />
      );
    default:
      return <Input {...control} aria-label={field.name} />;
  }
}

/** Users and roles of the organization (from the replica), as options of a `user` field. */
export function usePeople(): People & { userName(id: string): string } {
  const { t } = useTranslation();
  const users = useLive(
    (r) => r.db.users.find().$.pipe(map((docs) => docs.map((doc) => doc.toJSON() as { id: string; name: string }))),
    [],
  );
  const roles = useLive(
    (r) => r.db.roles.find().$.pipe(map((docs) => docs.map((doc) => doc.toJSON() as { id: string; name: string }))),
    [],
  );
  const byName = (a: { name: string }, b: { name: string }) => a.name.localeCompare(b.name);
  return {
    users: [...(users ?? [])].sort(byName).map((u) => ({ value: `user:${u.id}`, label: u.name })),
    roles: [...(roles ?? [])].sort(byName).map((r) => ({ value: `role:${r.id}`, label: r.name })),
    labels: { users: t('task.users'), roles: t('task.roles') },
    userName: (id) => users?.find((u) => u.id === id)?.name ?? id,
  };
}

/** A value as the form shows it, e.g. a date as dayjs. */
export function shownValue(field: FormField, value: unknown): unknown {
  if (field.type === 'date' && value) return dayjs(String(value));
  return value;
}

/** A value as stored: dates as `YYYY-MM-DD`, numbers normalised as the server does (SPEC §2.4). */
export function storedValue(field: FormField, value: unknown): { value: unknown } | { invalid: true } {
  if (value === undefined || value === null || value === '') return { value: null };
  if (dayjs.isDayjs(value)) return { value: value.format('YYYY-MM-DD') };
  if (field.type === 'number') {
    const normalized = normalizeNumber(value as string | number);
    return normalized === undefined ? { invalid: true } : { value: normalized };
  }
  return { value };
}
