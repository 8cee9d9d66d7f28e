import { z } from 'zod';
import { Problem } from './problem';

/** Opaque list cursors: base64url JSON of the sort key of the last item returned. */
export function encodeCursor(key: readonly (string | number)[]): string {
  return Buffer.from(JSON.stringify(key)).toString('base64url');
}

const CursorKey = z
  .array(z.union([z.string(), z.number()]))
  .min(1)
  .max(4);

export function decodeCursor(cursor: string | undefined): (string | number)[] | undefined {
  if (cursor === undefined) return undefined;
  try {
    return CursorKey.parse(JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')));
  } catch {
    throw Problem.of('validation_failed', 'The cursor is not one this API returned. Start again without a cursor.', {
      errors: [{ location: 'query', pointer: '#/cursor', detail: 'Unknown cursor', code: 'invalid_cursor' }],
    });
  }
}
