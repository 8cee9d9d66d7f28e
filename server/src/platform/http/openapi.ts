import { Problem } from '@shared/api/problem';
import { z } from 'zod';
import {
  createDocument,
  type ZodOpenApiOperationObject,
  type ZodOpenApiPathsObject,
  type ZodOpenApiResponsesObject,
} from 'zod-openapi';
import { type AnyRoute, routeAccess } from './routes';

function openApiPath(path: string): string {
  return path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}

function operationOf(route: AnyRoute): ZodOpenApiOperationObject {
  const responses: ZodOpenApiResponsesObject = {};
  for (const [status, spec] of Object.entries(route.responses)) {
    const contentType = spec.contentType ?? 'application/json';
    responses[status as `${1 | 2 | 3 | 4 | 5}${string}`] = {
      description: spec.description,
      ...(spec.schema || contentType !== 'application/json'
        ? { content: { [contentType]: { schema: spec.schema ?? z.string() } } }
        : {}),
    };
  }
  responses.default = {
    description: 'An error, as RFC 9457 problem details',
    content: { 'application/problem+json': { schema: Problem } },
  };
  const request = route.request ?? {};
  const access = routeAccess(route);
  return {
    operationId: route.operationId,
    ...(access === 'public' ? {} : { security: [{ bearerAuth: [] }] }),
    ...(access === 'admin' ? { 'x-orbita-access': 'admin' } : {}),
    ...(typeof access === 'object' ? { 'x-orbita-access': `module:${access.module}` } : {}),
    summary: route.summary,
    ...(route.description ? { description: route.description } : {}),
    tags: route.tags,
    ...(request.params || request.query
      ? {
          requestParams: {
            ...(request.params ? { path: request.params } : {}),
            ...(request.query ? { query: request.query } : {}),
          },
        }
      : {}),
    ...(request.body
      ? { requestBody: { required: true, content: { 'application/json': { schema: request.body } } } }
      : {}),
    responses,
  };
}

/** The OpenAPI 3.1 document of every mounted route, generated from their zod schemas. */
export function buildOpenApiDocument(routes: readonly AnyRoute[], info: { version: string }) {
  const paths: ZodOpenApiPathsObject = {};
  for (const route of routes) {
    const path = openApiPath(route.path);
    paths[path] = { ...paths[path], [route.method]: operationOf(route) };
  }
  return createDocument({
    openapi: '3.1.0',
    info: {
      title: 'Orbita API',
      version: info.version,
      description: 'Forms, tasks, directories and operations of an organization. Errors are RFC 9457 problem details.',
    },
    paths,
    components: {
      securitySchemes: {
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description: 'Access token from /api/auth/login',
        },
      },
    },
  });
}
