import type {
  CreateProfileFieldRequest,
  FieldHistoryQuery,
  ProfileField,
  ProfileFieldType,
  UpdateProfileFieldRequest,
  UserFieldHistory,
  UserProfileValues,
} from '@shared/api/profile';
import type { z } from 'zod';
import type { AuthContext } from '../../platform/auth/auth-context';
import type { Queryable } from '../../platform/db/db';
import { inUnit, type UnitDeps } from '../../platform/db/unit-of-work';
import { Problem } from '../../platform/http/problem';
import { newId } from '../../platform/ids';
import * as members from '../identity/members.service';
import { mayManageProfileOf } from './profile.policy';
import { presentField, presentHistory } from './profile.presenter';
import * as repo from './profile.repo';
import { checkProfileValues } from './profile-values';

export type ProfileDeps = UnitDeps;

const fieldNotFound = (fieldId: string) =>
  Problem.of('not_found', `There is no profile field ${fieldId} in your organization.`);
const userNotFound = (userId: string) => Problem.of('not_found', `There is no user ${userId} in your organization.`);

/** Refuses a user who is not the organization's (another organization's look unknown). */
async function assertUserExists(db: Queryable, organizationId: string, userId: string): Promise<void> {
  const known = await members.knownUserIds(db, organizationId, [userId]);
  if (!known.includes(userId)) throw userNotFound(userId);
}

/** Refuses what the profile policy does not allow (`mayManageProfileOf`). */
function assertOwnOrAdmin(auth: AuthContext, userId: string, action: string): void {
  if (!mayManageProfileOf(auth, userId)) {
    throw Problem.of('forbidden', `Only the user themself or an administrator may ${action}.`);
  }
}

/** Choices kept for a field of `type`: a select needs at least one, other types keep none. */
function resolveOptions(type: ProfileFieldType, options: string[] | null | undefined): string[] | null {
  if (type !== 'select') return null;
  const choices = [...new Set(options ?? [])];
  if (choices.length === 0) {
    throw Problem.of('validation_failed', 'A select field needs its choices.', {
      errors: [
        {
          location: 'body',
          pointer: '#/options',
          detail: 'A select field needs its choices',
          code: 'options_required',
        },
      ],
    });
  }
  return choices;
}

// ---- field definitions ----

export async function listFields(deps: ProfileDeps, auth: AuthContext) {
  return { items: (await repo.listFields(deps.db, auth.organizationId)).map(presentField) };
}

async function getField(db: Queryable, auth: AuthContext, fieldId: string): Promise<ProfileField> {
  const row = await repo.findField(db, auth.organizationId, fieldId);
  if (!row || row.deleted_at) throw fieldNotFound(fieldId);
  return presentField(row);
}

export async function createField(
  deps: ProfileDeps,
  auth: AuthContext,
  input: z.infer<typeof CreateProfileFieldRequest>,
): Promise<ProfileField> {
  const fieldId = newId();
  await repo.insertField(deps.db, {
    id: fieldId,
    organizationId: auth.organizationId,
    name: input.name,
    type: input.type,
    options: resolveOptions(input.type, input.options),
  });
  return getField(deps.db, auth, fieldId);
}

/** Renames a field or changes its choices; its type only while nobody has a value or history for it. */
export async function updateField(
  deps: ProfileDeps,
  auth: AuthContext,
  fieldId: string,
  patch: z.infer<typeof UpdateProfileFieldRequest>,
): Promise<ProfileField> {
  await inUnit(deps, async ({ tx }) => {
    const field = await repo.lockField(tx, auth.organizationId, fieldId);
    if (!field || field.deleted_at) throw fieldNotFound(fieldId);
    const type = patch.type ?? field.type;
    if (type !== field.type && (await repo.fieldHasValues(tx, auth.organizationId, fieldId))) {
      throw Problem.of(
        'field_type_locked',
        `Profile field "${field.name}" has values, so its type cannot change. Add a new field instead.`,
      );
    }
    const options = resolveOptions(type, patch.options === undefined ? field.options : patch.options);
    await repo.updateField(tx, auth.organizationId, fieldId, { name: patch.name ?? field.name, type, options });
  });
  return getField(deps.db, auth, fieldId);
}

/** Deletes a field: it leaves lists and takes no values; stored values and history stay. */
export async function deleteField(deps: ProfileDeps, auth: AuthContext, fieldId: string): Promise<void> {
  if (!(await repo.softDeleteField(deps.db, auth.organizationId, fieldId))) throw fieldNotFound(fieldId);
}

// ---- values ----

async function readValues(db: Queryable, organizationId: string, userId: string): Promise<UserProfileValues> {
  const rows = await repo.listValues(db, organizationId, userId);
  return { values: Object.fromEntries(rows.map((row) => [row.field_id, row.value])) };
}

/** A user's profile values; every member of the organization may read them. */
export async function getValues(deps: ProfileDeps, auth: AuthContext, userId: string): Promise<UserProfileValues> {
  await assertUserExists(deps.db, auth.organizationId, userId);
  return readValues(deps.db, auth.organizationId, userId);
}

/**
 * Writes the listed values of a user (their own, or anyone's for an administrator). Every write of
 * a `history-number` value appends to its history, the same value again too; clearing does not.
 */
export async function setValues(
  deps: ProfileDeps,
  auth: AuthContext,
  userId: string,
  input: Record<string, unknown>,
): Promise<UserProfileValues> {
  assertOwnOrAdmin(auth, userId, 'change these profile values');
  return inUnit(deps, async ({ tx }) => {
    await assertUserExists(tx, auth.organizationId, userId);
    const fields = await repo.lockFieldsForWriting(tx, auth.organizationId, Object.keys(input));
    const { changes, errors } = checkProfileValues(fields, input);
    if (errors.length > 0) {
      throw Problem.of('validation_failed', 'Some profile values are not valid. Correct the listed fields.', {
        errors,
      });
    }
    for (const { field, value } of changes) {
      const key = { organizationId: auth.organizationId, userId, fieldId: field.id };
      if (value === null) {
        await repo.deleteValue(tx, auth.organizationId, userId, field.id);
        continue;
      }
      await repo.upsertValue(tx, { ...key, value });
      if (field.type === 'history-number') {
        await repo.appendHistory(tx, { ...key, id: newId(), value: value as string, actorUserId: auth.userId });
      }
    }
    return readValues(tx, auth.organizationId, userId);
  });
}

// ---- history ----

/** AVG of a `history-number` field's values in buckets of the period (Moscow time), oldest first. */
export async function fieldHistory(
  deps: ProfileDeps,
  auth: AuthContext,
  userId: string,
  fieldId: string,
  query: z.infer<typeof FieldHistoryQuery>,
): Promise<UserFieldHistory> {
  assertOwnOrAdmin(auth, userId, 'read this history');
  await assertUserExists(deps.db, auth.organizationId, userId);
  const field = await repo.findField(deps.db, auth.organizationId, fieldId);
  if (!field || field.deleted_at) throw fieldNotFound(fieldId);
  if (field.type !== 'history-number') {
    throw Problem.of('validation_failed', `Profile field "${field.name}" keeps no history.`, {
      errors: [
        {
          location: 'params',
          pointer: '#/fieldId',
          detail: `"${field.name}" is a ${field.type} field; only history-number fields keep a history`,
          code: 'not_history_number',
        },
      ],
    });
  }
  const rows = await repo.historyBuckets(deps.db, auth.organizationId, userId, fieldId, query);
  return presentHistory(query.period, fieldId, rows);
}
