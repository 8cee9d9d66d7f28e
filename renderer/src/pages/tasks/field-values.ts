import type { FormField } from '@shared/api/forms';

/** A directory as the replica holds it, as far as labelling its rows goes. */
export interface LabelledDirectory {
  columns: { name: string }[];
  tree_display_column_index?: number;
}

/** The column labelling a `table` field's rows: the field's `displayColumn`, else the directory's tree display column. */
export function displayColumnIndex(directory: LabelledDirectory | undefined, field: FormField): number {
  const wanted = (field.displayColumn ?? '').toLowerCase();
  const named = wanted ? (directory?.columns.findIndex((column) => column.name.toLowerCase() === wanted) ?? -1) : -1;
  return named >= 0 ? named : (directory?.tree_display_column_index ?? 0);
}

/** What turns stored values into words: names of people and roles, labels of directory rows. */
export interface ValueNames {
  /** A `user` field's value: `user:<id>` or `role:<id>`. */
  person(value: string): string;
  /** The label of a directory row chosen in a `table` field, when known here. */
  row(field: FormField, rowId: string): string | undefined;
  yes: string;
  no: string;
  language: string;
}

const EMPTY = '—';

/**
 * A field's stored value as a person reads it: choices by their names, dates in the interface's
 * language, yes/no for checkboxes, a dash for nothing. An unknown field shows the value plainly.
 */
export function fieldValueText(field: FormField | undefined, value: unknown, names: ValueNames): string {
  if (value === null || value === undefined || value === '') return EMPTY;
  if (Array.isArray(value)) {
    return value.length === 0 ? EMPTY : value.map((item) => fieldValueText(field, item, names)).join(', ');
  }
  switch (field?.type) {
    case 'checkbox':
      return value === true ? names.yes : value === false ? names.no : String(value);
    case 'user':
      return names.person(String(value));
    case 'table':
      return names.row(field, String(value)) ?? String(value);
    case 'date': {
      const day = /^\d{4}-\d{2}-\d{2}$/.test(String(value)) ? new Date(`${value}T00:00:00Z`) : undefined;
      return day && !Number.isNaN(day.getTime())
        ? day.toLocaleDateString(names.language, { timeZone: 'UTC' })
        : String(value);
    }
    default:
      return typeof value === 'object' ? JSON.stringify(value) : String(value);
  }
}
