import {
  type Problem as ProblemBody,
  type ProblemCode,
  type ProblemFieldError,
  problemCatalogue,
  problemTypeUri,
} from '@shared/api/problem';
import type { z } from 'zod';

/**
 * An error that becomes an RFC 9457 problem response. Thrown anywhere in request handling;
 * rendered once, by the platform's error handler.
 */
export class Problem extends Error {
  readonly status: number;
  readonly code: string;
  readonly title: string;
  readonly errors: ProblemFieldError[] | undefined;
  readonly headers: Record<string, string>;

  constructor(
    status: number,
    code: string,
    detail: string,
    options: { title?: string; errors?: ProblemFieldError[]; headers?: Record<string, string> } = {},
  ) {
    super(detail);
    this.name = 'Problem';
    this.status = status;
    this.code = code;
    this.title = options.title ?? catalogueTitle(code) ?? 'The request failed';
    this.errors = options.errors;
    this.headers = options.headers ?? {};
  }

  /** A problem of a catalogued code, with the catalogue's status and title. */
  static of(
    code: ProblemCode,
    detail: string,
    options: { errors?: ProblemFieldError[]; headers?: Record<string, string> } = {},
  ) {
    return new Problem(problemCatalogue[code].status, code, detail, options);
  }

  toBody(requestId: string | undefined): ProblemBody {
    return {
      type: problemTypeUri(this.code),
      title: this.title,
      status: this.status,
      detail: this.message,
      code: this.code,
      ...(this.errors ? { errors: this.errors } : {}),
      ...(requestId ? { requestId } : {}),
    };
  }
}

/** The catalogue's entry of a code; a name of a built-in object property (`constructor`) is none. */
export function catalogueEntry(code: string): { status: number; title: string } | undefined {
  return Object.hasOwn(problemCatalogue, code) ? problemCatalogue[code as ProblemCode] : undefined;
}

function catalogueTitle(code: string): string | undefined {
  return catalogueEntry(code)?.title;
}

function toPointer(path: readonly PropertyKey[]): string {
  return `#/${path.map((key) => String(key).replace(/~/g, '~0').replace(/\//g, '~1')).join('/')}`;
}

/** Places reported at the most by `inadmissibleValues`. */
const INADMISSIBLE_MAX = 100;

/** A high surrogate not followed by a low one, or a low one not preceded by a high one. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Levels of arrays and objects a request may nest: none of ours needs more than a few. */
export const MAX_NESTING = 32;

/**
 * What no request may carry, wherever it is in `value`: text with a NUL character (U+0000) or a lone
 * UTF-16 surrogate, in a string or a key — PostgreSQL stores neither in text or jsonb, so it is
 * refused where it comes in, not at the write — and arrays or objects nested deeper than
 * `MAX_NESTING`, which the server's recursive steps (comparing values, encoding an answer) cannot
 * take. Walked without recursion.
 */
export function inadmissibleValues(location: ProblemFieldError['location'], value: unknown): ProblemFieldError[] {
  interface Place {
    value: unknown;
    key?: PropertyKey;
    parent?: Place;
    depth: number;
  }
  const errors: ProblemFieldError[] = [];
  const found = (place: Place, code: 'nul_character' | 'lone_surrogate' | 'too_deep', detail: string) => {
    const path: PropertyKey[] = [];
    for (let at: Place | undefined = place; at?.parent; at = at.parent) path.push(at.key as PropertyKey);
    errors.push({ location, pointer: toPointer(path.reverse()), detail, code });
  };
  const stack: Place[] = [{ value, depth: 0 }];
  while (stack.length > 0 && errors.length < INADMISSIBLE_MAX) {
    const place = stack.pop() as Place;
    const inner = place.value;
    if (typeof inner === 'string') {
      if (inner.includes('\u0000')) found(place, 'nul_character', 'Text cannot contain the NUL character (U+0000)');
      else if (LONE_SURROGATE.test(inner)) {
        found(place, 'lone_surrogate', 'Text cannot contain half of a UTF-16 surrogate pair (not valid Unicode)');
      }
    } else if (inner !== null && typeof inner === 'object') {
      if (place.depth >= MAX_NESTING) {
        found(place, 'too_deep', `Values cannot nest more than ${MAX_NESTING} levels deep`);
        continue;
      }
      // Children in reverse, so they come off the stack in document order.
      const children: [PropertyKey, unknown][] = Array.isArray(inner) ? [...inner.entries()] : Object.entries(inner);
      for (let index = children.length - 1; index >= 0; index -= 1) {
        const [key, child] = children[index] as [PropertyKey, unknown];
        const inadmissibleKey = typeof key === 'string' && (key.includes('\u0000') || LONE_SURROGATE.test(key));
        stack.push({ value: inadmissibleKey ? key : child, key, parent: place, depth: place.depth + 1 });
      }
    }
  }
  return errors;
}

/** Field errors of a failed zod parse of one part of the request. */
export function fieldErrors(location: ProblemFieldError['location'], error: z.ZodError): ProblemFieldError[] {
  return error.issues.map((issue) => ({
    location,
    pointer: toPointer(issue.path),
    detail: issue.message,
    code: issue.code,
  }));
}
