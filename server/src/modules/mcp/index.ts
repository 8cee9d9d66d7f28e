import { Readable } from 'node:stream';
import { createMcpHandler } from '@modelcontextprotocol/server';
import type { Request, Response } from 'express';
import { z } from 'zod';
import { unauthenticated } from '../../platform/auth/access-tokens';
import type { BotActor } from '../../platform/auth/actor';
import { apiKeyOf } from '../../platform/http/routes';
import type { ModuleFactory } from '../../platform/module';
import { createKeyResolver } from '../bots';
import { mcpServerFor } from './mcp.server';
import { mcpTools } from './mcp.tools';

export const MCP_PATH = '/api/mcp';
/** The largest JSON-RPC request taken (a task's description is at most 100,000 characters). */
const MAX_REQUEST_BYTES = 1_048_576;

/** The Express request as the web-standard one the MCP library serves; its body streamed, not parsed. */
function webRequest(req: Request): globalThis.Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  const hasBody = req.method !== 'GET' && req.method !== 'HEAD';
  return new globalThis.Request(`http://${req.headers.host ?? 'localhost'}${req.originalUrl}`, {
    method: req.method,
    headers,
    ...(hasBody ? { body: Readable.toWeb(req) as ReadableStream, duplex: 'half' } : {}),
  } as RequestInit);
}

async function send(res: Response, response: globalThis.Response): Promise<void> {
  res.status(response.status);
  for (const [name, value] of response.headers) res.setHeader(name, value);
  if (!response.body) {
    res.end();
    return;
  }
  await new Promise<void>((resolve, reject) => {
    Readable.fromWeb(response.body as never)
      .on('error', reject)
      .pipe(res)
      .on('finish', resolve)
      .on('error', reject);
  });
}

const toolList = mcpTools.map((tool) => `\`${tool.name}\` (${tool.needs})`).join(', ');

/**
 * The Model Context Protocol endpoint: AI agents work in Orbita with a bot's API key over
 * Streamable HTTP (stateless; the 2026 protocol and the 2025 one), through the same services as
 * REST. The key's mode decides the tools offered, its forms and directories what they reach.
 */
export const mcpModule: ModuleFactory = (context) => {
  const deps = { db: context.db, events: context.events };
  const resolveKey = createKeyResolver(deps);
  const handler = createMcpHandler((request) => mcpServerFor(deps, request.authInfo?.extra?.bot as BotActor), {
    maxRequestBodySize: MAX_REQUEST_BYTES,
    onerror: (error) => context.logger.warn({ err: error }, 'an MCP request failed'),
  });
  return {
    name: 'mcp',
    routes: [],
    endpoints: [
      {
        path: MCP_PATH,
        async handle(req, res) {
          const key = apiKeyOf(req);
          if (key === undefined) {
            throw unauthenticated(
              'The MCP endpoint takes a bot’s API key: send it as Authorization: Bearer orb_… or as X-API-Key. An administrator creates one in Settings → Bots.',
              'invalid_api_key',
            );
          }
          const bot = await resolveKey(key);
          res.locals.auth = bot;
          const authInfo = { token: key, clientId: bot.botId, scopes: [bot.scopes.mode], extra: { bot } };
          await send(res, await handler.fetch(webRequest(req), { authInfo }));
        },
        openapi: {
          post: {
            operationId: 'mcp',
            summary: 'Model Context Protocol endpoint (Streamable HTTP, stateless) for AI agents with a bot’s key',
            description:
              `JSON-RPC 2.0 messages of the Model Context Protocol, answered by the MCP library (JSON, or an event ` +
              `stream). Authenticated by a bot's API key. Tools: ${toolList}; a key is offered the tools its mode ` +
              `reaches, and its forms and directories limit what they find.`,
            tags: ['mcp'],
            security: [{ apiKey: [] }],
            requestBody: {
              required: true,
              content: { 'application/json': { schema: z.record(z.string(), z.unknown()) } },
            },
            responses: {
              200: { description: 'A JSON-RPC response (application/json or text/event-stream)' },
              401: { description: 'No key, or a malformed, regenerated or deleted one (problem details)' },
            },
          },
        },
      },
    ],
  };
};
