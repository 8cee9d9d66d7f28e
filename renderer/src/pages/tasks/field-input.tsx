import type { FormField } from '@shared/api/forms';
import { normalizeNumber } from '@shared/number';
import { Checkbox, DatePicker, Input, Select } from 'antd';
import dayjs from 'dayjs';
import { useTranslation } from 'react-i18next';
import { map } from 'rxjs';
import { useLive } from '../../data/replica-context';
import { displayColumnIndex, type LabelledDirectory, type ValueNames } from './field-values';

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
    (r) => r.db.directories.findOne(directoryId).$.pipe(map((doc) => doc?.toJSON() as LabelledDirectory | undefined)),
    [directoryId],
  );
  const rows = useLive(
    (r) =>
      r.db.directory_rows
        .find({ selector: { directoryId } })
        .$.pipe(map((docs) => docs.map((doc) => doc.toJSON() as { id: string; cells: unknown[] }))),
    [directoryId],
  );
  const index = displayColumnIndex(directory, field);
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
export function usePeople(): People & { userName(id: string): string; personName(value: string): string } {
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
  const userName = (id: string) => users?.find((u) => u.id === id)?.name ?? id;
  return {
    users: [...(users ?? [])].sort(byName).map((u) => ({ value: `user:${u.id}`, label: u.name })),
    roles: [...(roles ?? [])].sort(byName).map((r) => ({ value: `role:${r.id}`, label: r.name })),
    labels: { users: t('task.users'), roles: t('task.roles') },
    userName,
    personName(value) {
      if (value.startsWith('role:')) return roles?.find((r) => r.id === value.slice(5))?.name ?? value;
      return userName(value.replace(/^user:/, ''));
    },
  };
}

/**
 * Names for a form's stored values (people and roles, rows of its `table` fields' directories),
 * read from the replica.
 */
export function useValueNames(fields: readonly FormField[]): ValueNames {
  const { t, i18n } = useTranslation();
  const { personName } = usePeople();
  const directoryIds = [
    ...new Set(fields.flatMap((f) => (f.type === 'table' && f.directoryId ? [f.directoryId] : []))),
  ];
  // The live queries follow the set of directories (`key`), not a new array per render.
  const key = directoryIds.join(',');
  const directories = useLive(
    (r) =>
      r.db.directories
        .find({ selector: { id: { $in: directoryIds } } })
        .$.pipe(map((docs) => new Map(docs.map((doc) => [doc.primary, doc.toJSON() as unknown as LabelledDirectory])))),
    [key],
  );
  const rows = useLive(
    (r) =>
      r.db.directory_rows
        .find({ selector: { directoryId: { $in: directoryIds } } })
        .$.pipe(map((docs) => new Map(docs.map((doc) => [doc.primary, (doc.toJSON() as { cells: unknown[] }).cells])))),
    [key],
  );
  return {
    person: personName,
    row(field, rowId) {
      const cells = rows?.get(rowId);
      if (!cells) return undefined;
      const label = cells[displayColumnIndex(directories?.get(field.directoryId ?? ''), field)];
      return label === null || label === undefined ? undefined : String(label);
    },
    yes: t('task.yes'),
    no: t('task.no'),
    language: i18n.language,
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
