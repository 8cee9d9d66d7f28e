import type { ProblemFieldError } from '@shared/api/problem';
import { checkScalar, parseUserEntry, userEntries, type ValueCheck } from '@shared/values';
import { z } from 'zod';
import type { Queryable } from '../../platform/db/db';
import { liveRowIds } from '../directories/directories.service';
import type { FormField } from '../forms/forms.service';
import * as members from '../identity/members.service';

const UUID = z.uuid();

function isEmpty(value: unknown): boolean {
  return value === null || value === undefined || value === '' || (Array.isArray(value) && value.length === 0);
}

type Check = ValueCheck;

/** Normalises one value of a field of a known type; user and role existence is checked later. */
function normalizeValue(field: FormField, value: unknown): Check {
  const many = (item: (v: unknown) => Check): Check => {
    if (!field.allow_multiple) return item(value);
    const list = Array.isArray(value) ? value : [value];
    const out: unknown[] = [];
    for (const entry of list) {
      const checked = item(entry);
      if (!checked.ok) return checked;
      if (!out.includes(checked.value)) out.push(checked.value);
    }
    return { ok: true, value: out };
  };
  switch (field.type) {
    case 'text':
    case 'number':
    case 'date':
    case 'checkbox':
      return checkScalar(field.type, value);
    case 'select':
      return many((v) => checkScalar('select', v, { choices: field.options ?? [] }));
    case 'user':
      return many((v) => {
        const entry = parseUserEntry(v);
        // New values are stored with their prefix; legacy bare ids are still read.
        return entry
          ? { ok: true, value: `${entry.kind}:${entry.id}` }
          : { ok: false, detail: 'Expected user:<id> or role:<id>', code: 'invalid_user' };
      });
    case 'table':
      return many((v) =>
        UUID.safeParse(v).success
          ? { ok: true, value: v }
          : { ok: false, detail: 'Expected a row id', code: 'invalid_row' },
      );
    case 'document_template':
      return typeof value === 'string' || (typeof value === 'object' && value !== null)
        ? { ok: true, value }
        : { ok: false, detail: 'Expected a document reference', code: 'invalid_type' };
  }
}

export interface ValuesCheck {
  /** The complete set of values after the change. */
  values: Record<string, unknown>;
  errors: ProblemFieldError[];
}

/**
 * Validates and normalises `input` (values by field id) against the form's fields, on top of
 * `existing` values. Required fields must end up non-empty; unknown fields are refused; users and
 * roles must be the organization's.
 */
export async function checkFieldValues(
  db: Queryable,
  organizationId: string,
  fields: readonly FormField[],
  input: Record<string, unknown>,
  existing: Record<string, unknown> | undefined,
  pointerPrefix = '#/fields',
): Promise<ValuesCheck> {
  // On creation (no existing values) every required field must be filled; on an edit only the
  // fields being changed, so a field made required later does not block editing older tasks.
  const creating = existing === undefined;
  const errors: ProblemFieldError[] = [];
  const values: Record<string, unknown> = { ...(existing ?? {}) };
  const error = (fieldId: string, detail: string, code: string) =>
    errors.push({ location: 'body', pointer: `${pointerPrefix}/${fieldId}`, detail, code });
  for (const [fieldId, raw] of Object.entries(input)) {
    const field = fields.find((f) => f.id === fieldId);
    if (!field) {
      error(fieldId, 'The form has no such field', 'unknown_field');
      continue;
    }
    if (isEmpty(raw)) {
      values[fieldId] = null;
      continue;
    }
    const checked = normalizeValue(field, raw);
    if (checked.ok) values[fieldId] = checked.value;
    else error(fieldId, `${field.name}: ${checked.detail}`, checked.code);
  }
  for (const field of fields) {
    if (field.required && isEmpty(values[field.id]) && (creating || field.id in input)) {
      error(field.id, `${field.name} is required`, 'required');
    }
  }
  // References to people must be the organization's.
  const userFields = fields.filter((f) => f.type === 'user' && f.id in input && !isEmpty(values[f.id]));
  const entries = userFields.flatMap((f) => userEntries(values[f.id]).map((entry) => ({ field: f, entry })));
  const users = new Set(
    await members.knownUserIds(
      db,
      organizationId,
      entries.filter((e) => e.entry.kind === 'user').map((e) => e.entry.id),
    ),
  );
  const roles = new Set(
    await members.knownRoleIds(
      db,
      organizationId,
      entries.filter((e) => e.entry.kind === 'role').map((e) => e.entry.id),
    ),
  );
  for (const { field, entry } of entries) {
    if (!(entry.kind === 'user' ? users : roles).has(entry.id)) {
      error(
        field.id,
        `${field.name}: there is no ${entry.kind} ${entry.id} in your organization`,
        `unknown_${entry.kind}`,
      );
    }
  }
  // Rows chosen in `table` fields must be live rows of the field's directory.
  for (const field of fields.filter(
    (f) => f.type === 'table' && f.directory_id && f.id in input && !isEmpty(values[f.id]),
  )) {
    const value = values[field.id];
    const ids = (Array.isArray(value) ? value : [value]) as string[];
    const live = new Set(await liveRowIds(db, organizationId, field.directory_id as string, ids));
    const missing = ids.filter((id) => !live.has(id));
    if (missing.length > 0)
      error(field.id, `${field.name}: no row ${missing.join(', ')} in the directory`, 'unknown_row');
  }
  return { values, errors };
}

/** Whether two stored values are the same. */
export function sameValue(a: unknown, b: unknown): boolean {
  return JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
}
