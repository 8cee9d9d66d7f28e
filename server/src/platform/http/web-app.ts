import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import express, { type Router } from 'express';
import { sendProblem } from './errors';
import { Problem } from './problem';

/** Where `npm run build` puts the web interface. */
export const RENDERER_DIST = fileURLToPath(new URL('../../../../renderer/dist', import.meta.url));

/**
 * Serves the built web interface at `/` (and its client-side routes, `/med` included): static
 * files, then `index.html` for any other page a browser asks for. API paths never reach here.
 */
export function webApp(
  directory: string = RENDERER_DIST,
  options: {
    /** Origins whose GET responses the browser build's service worker keeps for offline (map tiles). */
    offlineOrigins?: () => readonly string[];
  } = {},
): Router {
  const router = express.Router();
  const index = path.join(directory, 'index.html');
  const serviceWorker = path.join(directory, 'sw.js');
  // The worker's script names the origins it keeps, so when they change its bytes change and the
  // browser installs it again — with the Content-Security-Policy of that moment, which lets the
  // worker itself fetch from them (a worker keeps the policy it was installed with).
  router.get('/sw.js', (_req, res, next) => {
    if (!existsSync(serviceWorker)) return next();
    const origins = JSON.stringify([...(options.offlineOrigins?.() ?? [])]);
    const script = readFileSync(serviceWorker, 'utf8').replace(
      'const TILE_ORIGINS = [];',
      `const TILE_ORIGINS = ${origins};`,
    );
    res.setHeader('Content-Type', 'text/javascript; charset=utf-8');
    res.setHeader('Cache-Control', 'no-cache');
    res.send(script);
  });
  router.use(express.static(directory, { index: false, maxAge: '1h' }));
  router.get(/^\/(?!api(\/|$)|socket\.io(\/|$)).*/i, (req, res, next) => {
    if (!req.accepts('html')) return next();
    if (!existsSync(index)) {
      sendProblem(
        req,
        res,
        Problem.of('not_found', 'The web interface is not built. Run `npm run build` (npm start does it for you).'),
      );
      return;
    }
    res.setHeader('Cache-Control', 'no-cache');
    res.sendFile(index);
  });
  return router;
}
