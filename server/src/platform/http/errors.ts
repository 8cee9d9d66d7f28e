import type { ErrorRequestHandler, Request, RequestHandler } from 'express';
import { Problem } from './problem';

const PROBLEM_CONTENT_TYPE = 'application/problem+json';

/** Errors of body parsing (body-parser / raw-body) by their `type`. */
function bodyParserProblem(error: {
  type?: string;
  limit?: number;
  status?: number;
  message: string;
}): Problem | undefined {
  switch (error.type) {
    case 'entity.parse.failed':
      return Problem.of(
        'malformed_json',
        `The request body is not valid JSON (${error.message}). Send a JSON object or array.`,
      );
    case 'entity.too.large':
      return Problem.of(
        'payload_too_large',
        `The request body is larger than the limit of ${error.limit ?? 'the server'} bytes. Send less data per request.`,
      );
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return Problem.of('unsupported_media_type', `${error.message}. Send the body as UTF-8 JSON.`);
    case 'request.aborted':
      return Problem.of('bad_request', 'The client aborted the request before its body arrived.');
    default:
      return undefined;
  }
}

/** Turns any thrown error into a problem: expected ones keep their status, the rest become 500. */
export function toProblem(error: unknown): Problem {
  if (error instanceof Problem) return error;
  if (error && typeof error === 'object' && 'message' in error) {
    const known = bodyParserProblem(error as { message: string; type?: string });
    if (known) return known;
    const status =
      (error as { status?: unknown; statusCode?: unknown }).status ?? (error as { statusCode?: unknown }).statusCode;
    // http-errors with a 4xx status (e.g. a malformed %-escape in a path) are the client's to fix.
    if (typeof status === 'number' && status >= 400 && status < 500) {
      return new Problem(status, 'bad_request', String((error as Error).message));
    }
  }
  return Problem.of(
    'internal_error',
    'An unexpected error occurred and was logged. Retry later; if it persists, report it with the request id.',
  );
}

export function sendProblem(req: Request, res: Parameters<RequestHandler>[1], problem: Problem): void {
  // Kept for whoever observes the response after it is sent (the error log).
  res.locals.problem = problem;
  res.status(problem.status);
  for (const [name, value] of Object.entries(problem.headers)) res.setHeader(name, value);
  res
    .type(PROBLEM_CONTENT_TYPE)
    .send(JSON.stringify(problem.toBody(req.id === undefined ? undefined : String(req.id))));
}

/** Unknown paths get 404, known paths with another method 405 with `Allow`; always a problem. */
export function notFoundHandler(allowedMethods: (path: string) => string[]): RequestHandler {
  return (req, res) => {
    const allowed = allowedMethods(req.path);
    if (allowed.length > 0) {
      sendProblem(
        req,
        res,
        Problem.of('method_not_allowed', `${req.method} is not allowed on ${req.path}. Use ${allowed.join(', ')}.`, {
          headers: { Allow: allowed.join(', ') },
        }),
      );
      return;
    }
    sendProblem(
      req,
      res,
      Problem.of('not_found', `There is nothing at ${req.method} ${req.path}. See /api/docs for the API.`),
    );
  };
}

/** The one place errors become responses. Server faults are logged with their stack. */
export const errorHandler: ErrorRequestHandler = (error, req, res, next) => {
  if (res.headersSent) {
    next(error);
    return;
  }
  const problem = toProblem(error);
  if (problem.status >= 500) req.log.error({ err: error }, 'request failed');
  sendProblem(req, res, problem);
};
