import { z } from 'zod';

/**
 * Stable machine codes of problem responses, with the HTTP status and title each one carries.
 * Clients branch on `code`; `title` is the short English summary of the kind of problem.
 */
export const problemCatalogue = {
  validation_failed: { status: 400, title: 'The request is not valid' },
  malformed_json: { status: 400, title: 'The request body is not valid JSON' },
  bad_request: { status: 400, title: 'The request cannot be processed' },
  unauthenticated: { status: 401, title: 'Sign-in is required' },
  invalid_token: { status: 401, title: 'The access token is not valid' },
  token_expired: { status: 401, title: 'The access token has expired' },
  invalid_credentials: { status: 401, title: 'The e-mail or password is wrong' },
  invalid_refresh_token: { status: 401, title: 'The refresh token is not valid' },
  refresh_token_reused: { status: 401, title: 'A used refresh token was presented again' },
  invalid_api_key: { status: 401, title: 'The API key is not valid' },
  forbidden: { status: 403, title: 'You may not do this' },
  module_access_denied: { status: 403, title: 'The module is not granted to you' },
  account_deactivated: { status: 403, title: 'The account is deactivated' },
  scope_denied: { status: 403, title: 'The API key’s scope does not allow this' },
  key_not_accepted: { status: 403, title: 'API keys cannot call this operation' },
  not_found: { status: 404, title: 'Nothing exists at this address' },
  method_not_allowed: { status: 405, title: 'This method is not allowed here' },
  conflict: { status: 409, title: 'The request conflicts with the current state' },
  email_taken: { status: 409, title: 'The e-mail address is already registered' },
  name_taken: { status: 409, title: 'The name is already used' },
  tree_cycle: { status: 409, title: 'The move would make a cycle' },
  cross_directory: { status: 409, title: 'Rows of different directories cannot be linked' },
  field_type_locked: { status: 409, title: 'The field has values and cannot change type' },
  status_in_use: { status: 409, title: 'Tasks are in this status' },
  transition_not_allowed: { status: 409, title: 'The workflow does not allow this move' },
  form_deleted: { status: 409, title: 'The form is deleted' },
  assigned_by_field: { status: 409, title: 'A field of the task assigns this person' },
  idempotency_key_reused: { status: 422, title: 'The idempotency key was used for another request' },
  batch_too_large: { status: 400, title: 'The batch is too large' },
  qr_generation_disabled: { status: 409, title: 'QR codes are turned off for the form' },
  last_admin: { status: 409, title: 'The organization needs an administrator' },
  invalid_reset_token: { status: 400, title: 'The reset link is not valid' },
  billing_blocked: { status: 402, title: 'The organization is blocked for non-payment' },
  invalid_signature: { status: 400, title: 'The webhook signature is not valid' },
  mock_provider_only: { status: 409, title: 'Only the mock payment provider allows this' },
  payload_too_large: { status: 413, title: 'The request body is too large' },
  unsupported_media_type: { status: 415, title: 'The request body has an unsupported type' },
  too_many_attempts: { status: 429, title: 'Too many attempts' },
  internal_error: { status: 500, title: 'Something went wrong on the server' },
  service_unavailable: { status: 503, title: 'The service is unavailable' },
  geocoder_not_configured: { status: 409, title: 'No reverse geocoder is configured' },
  geocoder_failed: { status: 502, title: 'The reverse geocoder did not answer' },
  tile_source_not_configured: { status: 409, title: 'The organization has no tile source of its own' },
  tile_download_forbidden: { status: 409, title: 'The tile source does not allow bulk downloads' },
  tile_area_too_large: { status: 400, title: 'The area has too many tiles to download' },
} as const satisfies Record<string, { status: number; title: string }>;

export type ProblemCode = keyof typeof problemCatalogue;

/** Where a validation error was found in the request. */
export const ProblemErrorLocation = z.enum(['body', 'query', 'params', 'headers']);

/** One invalid input: RFC 9457 style, with a JSON pointer into the part of the request it names. */
export const ProblemFieldError = z
  .object({
    location: ProblemErrorLocation,
    pointer: z.string().meta({ description: 'JSON pointer to the invalid value, e.g. `#/fields/0/name`' }),
    detail: z.string().meta({ description: 'What is wrong, in words a user can act on' }),
    code: z.string().meta({ description: 'Machine code of the check that failed' }),
  })
  .meta({ id: 'ProblemFieldError' });

/** RFC 9457 problem details, the body of every error response (`application/problem+json`). */
export const Problem = z
  .object({
    type: z.string().meta({ description: 'URI reference identifying the kind of problem' }),
    title: z.string(),
    status: z.number().int(),
    detail: z.string().meta({ description: 'What happened in this occurrence and what to do about it' }),
    code: z.string().meta({ description: 'Stable machine code, e.g. `validation_failed`' }),
    errors: z.array(ProblemFieldError).optional(),
    instance: z.string().optional(),
    requestId: z.string().optional(),
  })
  .meta({ id: 'Problem' });

export type Problem = z.infer<typeof Problem>;
export type ProblemFieldError = z.infer<typeof ProblemFieldError>;

/** The `type` URI of a problem code; it resolves to the catalogue entry at `/api/problems/{code}`. */
export function problemTypeUri(code: string): string {
  return `/api/problems/${code}`;
}

/** A catalogue entry as served by `GET /api/problems/{code}`. */
export const ProblemCatalogueEntry = z
  .object({ code: z.string(), status: z.number().int(), title: z.string() })
  .meta({ id: 'ProblemCatalogueEntry' });
