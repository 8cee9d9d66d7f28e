import { existsSync } from 'node:fs';
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
export function webApp(directory: string = RENDERER_DIST): Router {
  const router = express.Router();
  const index = path.join(directory, 'index.html');
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
