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

function catalogueTitle(code: string): string | undefined {
  return (problemCatalogue as Record<string, { title: string }>)[code]?.title;
}

function toPointer(path: readonly PropertyKey[]): string {
  return `#/${path.map((key) => String(key).replace(/~/g, '~0').replace(/\//g, '~1')).join('/')}`;
}

/**
 * Where `value` holds text with a NUL character (U+0000), in its strings or its keys: PostgreSQL
 * stores no NUL in text or jsonb, so such a value is refused where it comes in, not at the write.
 */
export function nulCharacterErrors(location: ProblemFieldError['location'], value: unknown): ProblemFieldError[] {
  const errors: ProblemFieldError[] = [];
  const visit = (inner: unknown, path: PropertyKey[]): void => {
    if (typeof inner === 'string') {
      if (inner.includes('\u0000')) {
        errors.push({
          location,
          pointer: toPointer(path),
          detail: 'Text cannot contain the NUL character (U+0000)',
          code: 'nul_character',
        });
      }
    } else if (Array.isArray(inner)) {
      for (const [index, item] of inner.entries()) visit(item, [...path, index]);
    } else if (inner !== null && typeof inner === 'object') {
      for (const [key, item] of Object.entries(inner)) {
        if (key.includes('\u0000')) visit(key, [...path, key]);
        visit(item, [...path, key]);
      }
    }
  };
  visit(value, []);
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
