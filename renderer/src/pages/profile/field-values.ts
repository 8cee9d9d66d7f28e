import type { ProfileField } from '@shared/api/profile';
import dayjs, { type Dayjs } from 'dayjs';

/** A value as the form holds it: dates as dayjs, the rest as the server sends them. */
export type FormValue = string | boolean | Dayjs | null | undefined;

/** The day.js pattern of a date written the way `locale` writes it (`DD.MM.YYYY`, `MM/DD/YYYY`). */
export function datePattern(locale: string): string {
  const tokens: Partial<Record<Intl.DateTimeFormatPartTypes, string>> = { year: 'YYYY', month: 'MM', day: 'DD' };
  return new Intl.DateTimeFormat(locale, { year: 'numeric', month: '2-digit', day: '2-digit' })
    .formatToParts(new Date(Date.UTC(2026, 0, 31)))
    .map((part) => (part.type === 'literal' ? part.value : (tokens[part.type] ?? '')))
    .join('');
}

/** The stored value (dates are `YYYY-MM-DD`) as the field's editor takes it. */
export function toFormValue(field: ProfileField, stored: unknown): FormValue {
  if (stored === undefined || stored === null) return field.type === 'checkbox' ? false : undefined;
  if (field.type === 'date') return dayjs(String(stored));
  if (field.type === 'checkbox') return stored === true;
  return String(stored);
}

/** What the server takes for a form value: null clears; dates as `YYYY-MM-DD`; text as typed. */
export function toRequestValue(value: FormValue): string | boolean | null {
  if (value === undefined || value === null) return null;
  if (dayjs.isDayjs(value)) return value.format('YYYY-MM-DD');
  if (typeof value === 'string' && value.trim() === '') return null;
  return value;
}

/**
 * The values that differ from what was loaded, by field id. Only these are sent: every write of a
 * `history-number` value adds to its history, so an unchanged one must not be written again.
 */
export function changedValues(
  fields: readonly ProfileField[],
  loaded: Record<string, unknown>,
  edited: Record<string, FormValue>,
): Record<string, string | boolean | null> {
  const changes: Record<string, string | boolean | null> = {};
  for (const field of fields) {
    if (!(field.id in edited)) continue;
    const before = toRequestValue(toFormValue(field, loaded[field.id]));
    const after = toRequestValue(edited[field.id]);
    if (before !== after) changes[field.id] = after;
  }
  return changes;
}
