import { z } from 'zod';
import { endpoint } from './endpoint';
import { FieldType } from './forms';

/**
 * Types of profile fields: the simple form field types, plus `history-number`, a number whose every
 * written value is kept (SPEC §1.3, §2.4).
 */
export const ProfileFieldType = z.enum([
  ...FieldType.extract(['text', 'number', 'date', 'checkbox', 'select']).options,
  'history-number',
]);
export type ProfileFieldType = z.infer<typeof ProfileFieldType>;

const Name = z.string().trim().min(1, 'Enter a name').max(200);
const Options = z
  .array(z.string().trim().min(1).max(200))
  .max(1000)
  .nullable()
  .meta({ description: 'Choices of a `select` field (required for it); ignored for other types' });

export const CreateProfileFieldRequest = z
  .object({ name: Name, type: ProfileFieldType, options: Options.optional() })
  .meta({ id: 'CreateProfileFieldRequest' });

export const UpdateProfileFieldRequest = z
  .object({
    name: Name.optional(),
    type: ProfileFieldType.optional().meta({
      description: 'May change only while no user has a value or history for the field (else 409 field_type_locked)',
    }),
    options: Options.optional(),
  })
  .meta({ id: 'UpdateProfileFieldRequest' });

export const ProfileField = z
  .object({
    id: z.uuid(),
    name: z.string(),
    type: ProfileFieldType,
    options: z.array(z.string()).nullable(),
    position: z.number().int(),
    createdAt: z.iso.datetime(),
  })
  .meta({ id: 'ProfileField' });
export type ProfileField = z.infer<typeof ProfileField>;

export const ProfileFieldList = z.object({ items: z.array(ProfileField) }).meta({ id: 'ProfileFieldList' });

/** Values to write, by field id; fields not listed keep their values. */
export const SetProfileValuesRequest = z.record(z.uuid(), z.unknown()).meta({
  id: 'SetProfileValuesRequest',
  description:
    'Values by profile field id; fields not listed are kept, null (or an empty string) clears a value. ' +
    'Numbers (also `history-number`) are sent as numbers or strings and stored as normalised decimal strings; ' +
    'dates as YYYY-MM-DD; checkboxes as booleans; selects as one of the choices.',
});

export const UserProfileValues = z
  .object({
    values: z
      .record(z.uuid(), z.unknown())
      .meta({ description: 'Set values by field id (deleted fields and cleared values are absent)' }),
  })
  .meta({ id: 'UserProfileValues' });
export type UserProfileValues = z.infer<typeof UserProfileValues>;

export const HistoryPeriod = z.enum(['week', 'month', 'quarter', 'year']);
export type HistoryPeriod = z.infer<typeof HistoryPeriod>;

export const FieldHistoryQuery = z
  .object({
    period: HistoryPeriod.default('month').meta({
      description: 'Bucket size; buckets start at Moscow midnight (weeks on Monday)',
    }),
    from: z.iso.datetime({ offset: true }).optional().meta({ description: 'Only values recorded at or after this' }),
    to: z.iso.datetime({ offset: true }).optional().meta({ description: 'Only values recorded before this' }),
  })
  .refine((query) => !query.from || !query.to || Date.parse(query.from) < Date.parse(query.to), {
    path: ['to'],
    message: 'to must be later than from',
  });

export const FieldHistoryBucket = z
  .object({
    start: z.iso.datetime().meta({ description: 'Start of the bucket: the UTC instant of its first Moscow midnight' }),
    average: z.string().meta({ description: 'AVG of the values in the bucket, as a normalised decimal string' }),
    count: z.number().int().meta({ description: 'How many values the bucket holds' }),
  })
  .meta({ id: 'FieldHistoryBucket' });

export const UserFieldHistory = z
  .object({ period: HistoryPeriod, fieldId: z.uuid(), buckets: z.array(FieldHistoryBucket) })
  .meta({ id: 'UserFieldHistory', description: 'Buckets holding at least one value, oldest first' });
export type UserFieldHistory = z.infer<typeof UserFieldHistory>;

const FieldParams = z.object({ fieldId: z.uuid() });
const UserParams = z.object({ userId: z.uuid() });
const UserFieldParams = z.object({ userId: z.uuid(), fieldId: z.uuid() });

/** Profile field definitions, users' values and the history of `history-number` fields. */
export const profileApi = {
  listProfileFields: endpoint({
    method: 'get',
    path: '/api/profile-fields',
    operationId: 'listProfileFields',
    summary: 'Profile fields of the organization, in order',
    tags: ['profile'],
    responses: { 200: { description: 'Fields', schema: ProfileFieldList } },
  }),
  createProfileField: endpoint({
    method: 'post',
    path: '/api/profile-fields',
    operationId: 'createProfileField',
    summary: 'Add a profile field (after the last one)',
    tags: ['profile'],
    request: { body: CreateProfileFieldRequest },
    responses: { 201: { description: 'Field', schema: ProfileField } },
  }),
  updateProfileField: endpoint({
    method: 'patch',
    path: '/api/profile-fields/:fieldId',
    operationId: 'updateProfileField',
    summary: 'Rename a profile field or change its choices (its type only while it has no values)',
    tags: ['profile'],
    request: { params: FieldParams, body: UpdateProfileFieldRequest },
    responses: { 200: { description: 'Field', schema: ProfileField } },
  }),
  deleteProfileField: endpoint({
    method: 'delete',
    path: '/api/profile-fields/:fieldId',
    operationId: 'deleteProfileField',
    summary: 'Delete a profile field (its values and history are kept, hidden)',
    tags: ['profile'],
    request: { params: FieldParams },
    responses: { 204: { description: 'Deleted' } },
  }),
  getUserFieldValues: endpoint({
    method: 'get',
    path: '/api/users/:userId/fields',
    operationId: 'getUserFieldValues',
    summary: 'A user’s profile values (every member may read them)',
    tags: ['profile'],
    request: { params: UserParams },
    responses: { 200: { description: 'Values', schema: UserProfileValues } },
  }),
  setUserFieldValues: endpoint({
    method: 'put',
    path: '/api/users/:userId/fields',
    operationId: 'setUserFieldValues',
    summary: 'Write profile values (own; administrators: anyone’s)',
    description:
      'Only the listed fields change. Every write of a history-number value appends to its history, ' +
      'the same value again too; null clears a value and records nothing.',
    tags: ['profile'],
    request: { params: UserParams, body: SetProfileValuesRequest },
    responses: { 200: { description: 'All values of the user after the change', schema: UserProfileValues } },
  }),
  getUserFieldHistory: endpoint({
    method: 'get',
    path: '/api/users/:userId/field-history/:fieldId',
    operationId: 'getUserFieldHistory',
    summary: 'History of a history-number field: AVG per week, month, quarter or year (Moscow time)',
    description:
      'Readable by the user themself and administrators. `from` (inclusive) and `to` (exclusive) limit the ' +
      'values averaged; a bucket the range cuts averages only the values inside it.',
    tags: ['profile'],
    request: { params: UserFieldParams, query: FieldHistoryQuery },
    responses: { 200: { description: 'Buckets, oldest first', schema: UserFieldHistory } },
  }),
};
