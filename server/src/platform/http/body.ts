import express, { type RequestHandler } from 'express';
import { match } from 'path-to-regexp';
import type { AnyRoute } from './routes';

const JSON_TYPES = ['application/json', 'application/*+json'];
const FORM_TYPE = 'application/x-www-form-urlencoded';

/**
 * Parses JSON bodies up to the server's limit, or up to a route's own `bodyLimit` for the few
 * routes that take large documents (a CSV import); everything else keeps the small limit. Routes
 * declared `rawBody` keep their body as bytes (a Buffer in `req.body`).
 */
export function jsonBodies(routes: readonly AnyRoute[], defaultLimit: string): RequestHandler {
  const parse = express.json({ limit: defaultLimit, type: JSON_TYPES });
  const large = routes
    .filter((route) => route.bodyLimit)
    .map((route) => ({
      method: route.method.toUpperCase(),
      // Only whether the path is the route's counts: a segment is not decoded, so malformed percent-encoding cannot throw here.
      matches: match(route.path, { decode: false }),
      parse: express.json({ limit: route.bodyLimit, type: JSON_TYPES }),
    }));
  // Routes that read their body's bytes themselves (a signed webhook) get them unparsed, whatever the type.
  const raw = routes
    .filter((route) => route.rawBody)
    .map((route) => ({
      method: route.method.toUpperCase(),
      matches: match(route.path, { decode: false }),
      parse: express.raw({ limit: route.bodyLimit ?? defaultLimit, type: () => true }),
    }));
  // Routes that accept forms (device protocols) get `application/x-www-form-urlencoded` bodies parsed too.
  const forms = routes
    .filter((route) => route.accepts?.includes('form'))
    .map((route) => ({
      method: route.method.toUpperCase(),
      matches: match(route.path, { decode: false }),
      parse: express.urlencoded({ limit: route.bodyLimit ?? defaultLimit, type: FORM_TYPE, extended: false }),
    }));
  return (req, res, next) => {
    const form = req.is(FORM_TYPE) && forms.find((route) => route.method === req.method && route.matches(req.path));
    if (form) return form.parse(req, res, next);
    const bytes = raw.find((route) => route.method === req.method && route.matches(req.path));
    if (bytes) return bytes.parse(req, res, next);
    const own = large.find((route) => route.method === req.method && route.matches(req.path));
    return (own?.parse ?? parse)(req, res, next);
  };
}
