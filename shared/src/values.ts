import { z } from 'zod';
import { normalizeNumber } from './number';

const UUID = z.uuid();

/** Value types shared by form fields, profile fields and directory columns. */
export type ScalarType = 'text' | 'number' | 'date' | 'checkbox' | 'select';

export type ValueCheck = { ok: true; value: unknown } | { ok: false; detail: string; code: string };

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** A real calendar date written `YYYY-MM-DD` (2024-02-30 is not one). */
export function isIsoDate(value: string): boolean {
  const match = DATE.exec(value);
  if (!match) return false;
  const date = new Date(Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3])));
  return date.toISOString().slice(0, 10) === value;
}

/**
 * Checks and normalises one non-empty value of a scalar type: numbers become normalised strings,
 * dates must be real, a select value must be one of `choices`.
 */
export function checkScalar(
  type: ScalarType,
  value: unknown,
  options: { choices?: readonly string[]; textLimit?: number } = {},
): ValueCheck {
  switch (type) {
    case 'text': {
      const limit = options.textLimit ?? 100_000;
      return typeof value === 'string' && value.length <= limit
        ? { ok: true, value }
        : { ok: false, detail: `Expected text of at most ${limit} characters`, code: 'invalid_type' };
    }
    case 'number': {
      const normalized = typeof value === 'string' || typeof value === 'number' ? normalizeNumber(value) : undefined;
      return normalized === undefined
        ? { ok: false, detail: `"${String(value)}" is not a number`, code: 'not_a_number' }
        : { ok: true, value: normalized };
    }
    case 'date':
      return typeof value === 'string' && isIsoDate(value)
        ? { ok: true, value }
        : { ok: false, detail: 'Expected a date as YYYY-MM-DD', code: 'invalid_date' };
    case 'checkbox':
      return typeof value === 'boolean'
        ? { ok: true, value }
        : { ok: false, detail: 'Expected true or false', code: 'invalid_type' };
    case 'select': {
      const choices = options.choices ?? [];
      return typeof value === 'string' && choices.includes(value)
        ? { ok: true, value }
        : { ok: false, detail: `Choose one of: ${choices.join(', ')}`, code: 'invalid_choice' };
    }
  }
}

/** A `user` field entry: `user:<id>`, `role:<id>`, or a legacy bare user id. */
export interface UserEntry {
  kind: 'user' | 'role';
  id: string;
}

export function parseUserEntry(value: unknown): UserEntry | undefined {
  if (typeof value !== 'string') return undefined;
  const match = /^(user|role):(.+)$/.exec(value);
  if (match && UUID.safeParse(match[2]).success) return { kind: match[1] as 'user' | 'role', id: match[2] as string };
  if (UUID.safeParse(value).success) return { kind: 'user', id: value };
  return undefined;
}

/** Entries of a stored `user` value (single, array, legacy bare id); unreadable items are skipped. */
export function userEntries(value: unknown): UserEntry[] {
  const items = Array.isArray(value) ? value : value === null || value === undefined ? [] : [value];
  return items.map(parseUserEntry).filter((entry): entry is UserEntry => entry !== undefined);
}
