import type { ProblemFieldError } from '@shared/api/problem';
import { normalizeNumber } from '@shared/number';
import type { ProfileFieldRow } from './profile.repo';

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const TEXT_LIMIT = 10_000;

type Check = { ok: true; value: unknown } | { ok: false; detail: string; code: string };

function validDate(value: string): boolean {
  const match = DATE.exec(value);
  if (!match) return false;
  const date = new Date(Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3])));
  return date.toISOString().slice(0, 10) === value;
}

/** Normalises one non-empty value of a field by its type. */
function normalizeValue(field: ProfileFieldRow, value: unknown): Check {
  switch (field.type) {
    case 'text':
      return typeof value === 'string' && value.length <= TEXT_LIMIT
        ? { ok: true, value }
        : { ok: false, detail: `Expected text of at most ${TEXT_LIMIT} characters`, code: 'invalid_type' };
    case 'number':
    case 'history-number': {
      const normalized = typeof value === 'string' || typeof value === 'number' ? normalizeNumber(value) : undefined;
      return normalized === undefined
        ? { ok: false, detail: `"${String(value)}" is not a number`, code: 'not_a_number' }
        : { ok: true, value: normalized };
    }
    case 'date':
      return typeof value === 'string' && validDate(value)
        ? { ok: true, value }
        : { ok: false, detail: 'Expected a date as YYYY-MM-DD', code: 'invalid_date' };
    case 'checkbox':
      return typeof value === 'boolean'
        ? { ok: true, value }
        : { ok: false, detail: 'Expected true or false', code: 'invalid_type' };
    case 'select':
      return typeof value === 'string' && (field.options ?? []).includes(value)
        ? { ok: true, value }
        : { ok: false, detail: `Choose one of: ${(field.options ?? []).join(', ')}`, code: 'invalid_choice' };
  }
}

/** One value to write: `null` clears it. */
export interface ProfileValueChange {
  field: ProfileFieldRow;
  value: unknown;
}

export interface ProfileValuesCheck {
  changes: ProfileValueChange[];
  errors: ProblemFieldError[];
}

/**
 * Validates and normalises `input` (values by field id) against the organization's live fields.
 * Unknown (or deleted) fields are refused; null or an empty string clears a value. Errors point at
 * `#/<fieldId>` of the body.
 */
export function checkProfileValues(
  fields: readonly ProfileFieldRow[],
  input: Record<string, unknown>,
): ProfileValuesCheck {
  const changes: ProfileValueChange[] = [];
  const errors: ProblemFieldError[] = [];
  const error = (fieldId: string, detail: string, code: string) =>
    errors.push({ location: 'body', pointer: `#/${fieldId}`, detail, code });
  for (const [fieldId, raw] of Object.entries(input)) {
    const field = fields.find((f) => f.id === fieldId);
    if (!field) {
      error(fieldId, 'There is no such profile field in your organization', 'unknown_field');
      continue;
    }
    if (raw === null || raw === '') {
      changes.push({ field, value: null });
      continue;
    }
    const checked = normalizeValue(field, raw);
    if (checked.ok) changes.push({ field, value: checked.value });
    else error(fieldId, `${field.name}: ${checked.detail}`, checked.code);
  }
  return { changes, errors };
}
