import { z } from 'zod';
import { endpoint } from './endpoint';
import { ProblemCatalogueEntry } from './problem';

/** The contract itself: the OpenAPI document, its docs page and the catalogue of problem codes. */
export const platformApi = {
  getOpenApiDocument: endpoint({
    method: 'get',
    path: '/api/openapi.json',
    operationId: 'getOpenApiDocument',
    summary: 'The OpenAPI 3.1 document of this API',
    tags: ['platform'],
    responses: { 200: { description: 'OpenAPI 3.1 document', schema: z.record(z.string(), z.unknown()) } },
  }),
  getApiDocs: endpoint({
    method: 'get',
    path: '/api/docs',
    operationId: 'getApiDocs',
    summary: 'Browsable documentation of this API',
    tags: ['platform'],
    responses: { 200: { description: 'HTML page', contentType: 'text/html' } },
  }),
  listProblemTypes: endpoint({
    method: 'get',
    path: '/api/problems',
    operationId: 'listProblemTypes',
    summary: 'The catalogue of problem codes',
    tags: ['platform'],
    responses: { 200: { description: 'Every problem code', schema: z.array(ProblemCatalogueEntry) } },
  }),
  getProblemType: endpoint({
    method: 'get',
    path: '/api/problems/:code',
    operationId: 'getProblemType',
    summary: 'What a problem code means',
    tags: ['platform'],
    request: { params: z.object({ code: z.string() }) },
    responses: { 200: { description: 'The catalogue entry', schema: ProblemCatalogueEntry } },
  }),
};
