import { createRequire } from 'node:module';
import path from 'node:path';
import { platformApi } from '@shared/api/platform';
import { problemCatalogue } from '@shared/api/problem';
import express, { type Router } from 'express';
import { buildOpenApiDocument } from './openapi';
import { catalogueEntry, Problem } from './problem';
import { type AnyRoute, defineRoute, type RawEndpoint } from './routes';

const require = createRequire(import.meta.url);
const swaggerUiDir = path.dirname(require.resolve('swagger-ui-dist/package.json'));

const DOCS_PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Orbita API</title>
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <link rel="stylesheet" href="/api/docs/assets/swagger-ui.css">
</head>
<body>
  <div id="api-docs"></div>
  <script src="/api/docs/assets/swagger-ui-bundle.js"></script>
  <script src="/api/docs/init.js"></script>
</body>
</html>`;

// A file, not an inline script, so the Content-Security-Policy can forbid inline scripts.
const DOCS_INIT = `window.ui = SwaggerUIBundle({ url: '/api/openapi.json', dom_id: '#api-docs', deepLinking: true });`;

/**
 * The contract routes: the OpenAPI document of all routes (read through `allRoutes`, so it always
 * lists what is mounted), its docs page, and the catalogue behind problem `type` URIs.
 */
export function contractRoutes(
  allRoutes: () => readonly AnyRoute[],
  version: string,
  endpoints: readonly RawEndpoint[] = [],
): AnyRoute[] {
  let document: unknown;
  return [
    defineRoute({
      ...platformApi.getOpenApiDocument,
      access: 'public',
      handler: () => {
        document ??= buildOpenApiDocument(allRoutes(), { version }, endpoints);
        return { status: 200, body: document };
      },
    }),
    defineRoute({
      ...platformApi.getApiDocs,
      access: 'public',
      handler: () => ({ status: 200, body: DOCS_PAGE }),
    }),
    defineRoute({
      ...platformApi.listProblemTypes,
      access: 'public',
      handler: () => ({
        status: 200,
        body: Object.entries(problemCatalogue).map(([code, entry]) => ({ code, ...entry })),
      }),
    }),
    defineRoute({
      ...platformApi.getProblemType,
      access: 'public',
      handler: ({ params }) => {
        const entry = catalogueEntry(params.code);
        if (!entry) throw Problem.of('not_found', `There is no problem code "${params.code}". See /api/problems.`);
        return { status: 200, body: { code: params.code, ...entry } };
      },
    }),
  ];
}

/** Static files of the docs page. */
export function docsAssets(): Router {
  const router = express.Router();
  router.get('/api/docs/init.js', (_req, res) => {
    res.type('text/javascript').send(DOCS_INIT);
  });
  router.use('/api/docs/assets', express.static(swaggerUiDir, { index: false, maxAge: '1d' }));
  return router;
}
