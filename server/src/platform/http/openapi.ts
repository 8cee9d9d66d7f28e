import { Problem } from '@shared/api/problem';
import { z } from 'zod';
import {
  createDocument,
  type ZodOpenApiOperationObject,
  type ZodOpenApiPathsObject,
  type ZodOpenApiResponsesObject,
} from 'zod-openapi';
import { type AnyRoute, type RawEndpoint, routeAccess } from './routes';

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
  const tokenWords = typeof access === 'object' && 'token' in access ? access.token.description : undefined;
  const description = [route.description, tokenWords].filter(Boolean).join('\n\n');
  return {
    operationId: route.operationId,
    ...(access === 'public' ? {} : { security: [{ bearerAuth: [] }] }),
    ...(access === 'admin' ? { 'x-orbita-access': 'admin' } : {}),
    ...(typeof access === 'object' && 'module' in access ? { 'x-orbita-access': `module:${access.module}` } : {}),
    ...(typeof access === 'object' && 'token' in access ? { 'x-orbita-access': 'token' } : {}),
    summary: route.summary,
    ...(description ? { description } : {}),
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
      ? {
          requestBody: {
            required: !route.accepts?.includes('form'),
            content: Object.fromEntries(
              (route.accepts ?? ['json']).map((type) => [
                type === 'json' ? 'application/json' : 'application/x-www-form-urlencoded',
                { schema: request.body },
              ]),
            ),
          },
        }
      : {}),
    responses,
  };
}

/** The document's introduction (Markdown, shown at the top of /api/docs): how to authenticate, and MCP. */
const API_DESCRIPTION = `Forms, tasks, directories and operations of an organization. Errors are RFC 9457 problem details.

## Authentication

- **People** sign in at \`POST /api/auth/login\` and send the access token as \`Authorization: Bearer <token>\`.
- **Bots** send their API key (\`orb_…\`, shown once when an administrator creates or regenerates it in
  Settings → Bots) as \`X-API-Key: orb_…\` or \`Authorization: Bearer orb_…\`. A key acts as its bot on the
  routes open to bots, within its mode (\`read\`, \`write\`, \`full\`) and its forms and directories: a
  record outside them answers 404, a write beyond the mode 403 \`scope_denied\`.

## MCP (Model Context Protocol)

AI agents use \`POST /api/mcp\` (Streamable HTTP, stateless) with a bot's key. An MCP client's
configuration, with this server's address:

\`\`\`json
{
  "mcpServers": {
    "orbita": {
      "type": "http",
      "url": "https://orbita.example.org/api/mcp",
      "headers": { "Authorization": "Bearer orb_…" }
    }
  }
}
\`\`\`

A key of mode \`read\` is offered the reading tools, \`write\` also those that create and change tasks,
and \`full\` with no form or directory limits also those that write automations.`;

/** The OpenAPI 3.1 document of every mounted route, generated from their zod schemas. */
export function buildOpenApiDocument(
  routes: readonly AnyRoute[],
  info: { version: string },
  endpoints: readonly RawEndpoint[] = [],
) {
  const paths: ZodOpenApiPathsObject = {};
  for (const endpoint of endpoints) paths[openApiPath(endpoint.path)] = endpoint.openapi;
  for (const route of routes) {
    const path = openApiPath(route.path);
    paths[path] = { ...paths[path], [route.method]: operationOf(route) };
  }
  return createDocument({
    openapi: '3.1.0',
    info: {
      title: 'Orbita API',
      version: info.version,
      description: API_DESCRIPTION,
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
        apiKey: {
          type: 'apiKey',
          in: 'header',
          name: 'X-API-Key',
          description: 'A bot’s API key (orb_…); also accepted as `Authorization: Bearer orb_…`',
        },
      },
    },
  });
}
