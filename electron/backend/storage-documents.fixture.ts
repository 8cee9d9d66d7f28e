import { now, type RxDocumentData, randomToken } from 'rxdb';

/** A stored document as a storage receives it: the fields plus RxDB's meta data. */
export function storedDocument<T>(
  fields: T,
  meta: { deleted?: boolean; rev?: string; lwt?: number } = {},
): RxDocumentData<T> {
  return {
    ...fields,
    _deleted: meta.deleted ?? false,
    _attachments: {},
    _rev: meta.rev ?? `1-${randomToken(8)}`,
    _meta: { lwt: meta.lwt ?? now() },
  };
}

/** The next revision of a stored document with some fields changed. */
export function revise<T>(
  previous: RxDocumentData<T>,
  change: Partial<T> & { _deleted?: boolean; lwt?: number } = {},
): RxDocumentData<T> {
  const { lwt, ...fields } = change;
  const height = Number(previous._rev.split('-')[0]) + 1;
  return { ...previous, ...fields, _rev: `${height}-${randomToken(8)}`, _meta: { lwt: lwt ?? now() } };
}

/** A one-collection schema for storage round trips in tests: notes with an optional text. */
export const NOTE_SCHEMA = {
  version: 0,
  primaryKey: 'id',
  type: 'object',
  properties: { id: { type: 'string', maxLength: 40 }, text: { type: 'string' } },
  required: ['id'],
} as const;
