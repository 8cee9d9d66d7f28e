import type { RequestHandler } from 'express';

const ALLOWED_HEADERS = 'Authorization, Content-Type, Idempotency-Key, X-API-Key, X-Request-Id';
const ALLOWED_METHODS = 'GET, POST, PUT, PATCH, DELETE';

/**
 * Lets pages of the listed origins (the desktop app's `app://orbita`) call the API. Answers
 * preflights itself; other origins get no CORS headers, so browsers keep refusing them.
 */
export function allowOrigins(origins: readonly string[]): RequestHandler {
  const allowed = new Set(origins);
  return (req, res, next) => {
    const origin = req.get('origin');
    if (origin === undefined) return next();
    res.vary('Origin');
    if (!allowed.has(origin)) return next();
    res.setHeader('Access-Control-Allow-Origin', origin);
    res.setHeader(
      'Access-Control-Expose-Headers',
      'X-Request-Id, Location, Retry-After, Content-Disposition, X-Qr-Count',
    );
    if (req.method === 'OPTIONS' && req.get('access-control-request-method')) {
      res.setHeader('Access-Control-Allow-Methods', ALLOWED_METHODS);
      res.setHeader('Access-Control-Allow-Headers', ALLOWED_HEADERS);
      res.setHeader('Access-Control-Max-Age', '600');
      res.status(204).end();
      return;
    }
    next();
  };
}
