import { createRequire } from 'node:module';
import path from 'node:path';
import { ProblemCatalogueEntry, problemCatalogue } from '@shared/api/problem';
import express, { type Router } from 'express';
import { z } from 'zod';
import { buildOpenApiDocument } from './openapi';
import { catalogueEntry, Problem } from './problem';
import { type AnyRoute, defineRoute } from './routes';

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
export function contractRoutes(allRoutes: () => readonly AnyRoute[], version: string): AnyRoute[] {
  let document: unknown;
  return [
    defineRoute({
      method: 'get',
      path: '/api/openapi.json',
      access: 'public',
      operationId: 'getOpenApiDocument',
      summary: 'The OpenAPI 3.1 document of this API',
      tags: ['platform'],
      responses: { 200: { description: 'OpenAPI 3.1 document', schema: z.record(z.string(), z.unknown()) } },
      handler: () => {
        document ??= buildOpenApiDocument(allRoutes(), { version });
        return { status: 200, body: document };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/api/docs',
      access: 'public',
      operationId: 'getApiDocs',
      summary: 'Browsable documentation of this API',
      tags: ['platform'],
      responses: { 200: { description: 'HTML page', contentType: 'text/html' } },
      handler: () => ({ status: 200, body: DOCS_PAGE }),
    }),
    defineRoute({
      method: 'get',
      path: '/api/problems',
      access: 'public',
      operationId: 'listProblemTypes',
      summary: 'The catalogue of problem codes',
      tags: ['platform'],
      responses: { 200: { description: 'Every problem code', schema: z.array(ProblemCatalogueEntry) } },
      handler: () => ({
        status: 200,
        body: Object.entries(problemCatalogue).map(([code, entry]) => ({ code, ...entry })),
      }),
    }),
    defineRoute({
      method: 'get',
      path: '/api/problems/:code',
      access: 'public',
      operationId: 'getProblemType',
      summary: 'What a problem code means',
      tags: ['platform'],
      request: { params: z.object({ code: z.string() }) },
      responses: { 200: { description: 'The catalogue entry', schema: ProblemCatalogueEntry } },
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
