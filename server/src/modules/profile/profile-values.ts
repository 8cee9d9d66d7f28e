import type { ProblemFieldError } from '@shared/api/problem';
import { checkScalar, type ValueCheck } from '@shared/values';
import type { ProfileFieldRow } from './profile.repo';

const TEXT_LIMIT = 10_000;

/** Normalises one non-empty value of a field by its type. */
function normalizeValue(field: ProfileFieldRow, value: unknown): ValueCheck {
  const type = field.type === 'history-number' ? 'number' : field.type;
  return checkScalar(type, value, { choices: field.options ?? [], textLimit: TEXT_LIMIT });
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
