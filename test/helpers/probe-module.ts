import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import { defineRoute } from '../../server/src/platform/http/routes';
import type { ModuleFactory } from '../../server/src/platform/module';

const Echo = z.object({
  name: z.string().min(1),
  count: z.number().int().nonnegative(),
  tags: z.array(z.string()).optional(),
});

/**
 * Routes that exercise the HTTP platform itself (validation, errors, contract checks, shutdown).
 * Mounted only by tests, never by the product.
 */
export const probeModule: ModuleFactory = () => ({
  name: 'probe',
  routes: [
    defineRoute({
      method: 'post',
      path: '/api/probe/echo',
      access: 'public',
      operationId: 'probeEcho',
      summary: 'Echoes a validated body',
      tags: ['probe'],
      request: { body: Echo },
      responses: { 201: { description: 'The body', schema: Echo } },
      handler: ({ body }) => ({ status: 201, body }),
    }),
    defineRoute({
      method: 'get',
      path: '/api/probe/items/:itemId',
      access: 'public',
      operationId: 'probeItem',
      summary: 'Validates path and query',
      tags: ['probe'],
      request: {
        params: z.object({ itemId: z.uuid() }),
        query: z.object({ limit: z.coerce.number().int().min(1).max(100).default(20) }),
      },
      responses: { 200: { description: 'The item', schema: z.object({ itemId: z.string(), limit: z.number() }) } },
      handler: ({ params, query }) => ({ status: 200, body: { itemId: params.itemId, limit: query.limit } }),
    }),
    defineRoute({
      method: 'get',
      path: '/api/probe/boom',
      access: 'public',
      operationId: 'probeBoom',
      summary: 'Fails unexpectedly',
      tags: ['probe'],
      responses: { 200: { description: 'Never' } },
      handler: () => {
        throw new Error('connection string postgres://secret@db/internal');
      },
    }),
    defineRoute({
      method: 'get',
      path: '/api/probe/breach',
      access: 'public',
      operationId: 'probeBreach',
      summary: 'Answers outside its contract',
      tags: ['probe'],
      responses: { 200: { description: 'Declared shape', schema: z.object({ id: z.string() }) } },
      handler: () => ({ status: 200, body: { id: 42 } }),
    }),
    defineRoute({
      method: 'get',
      path: '/api/probe/slow',
      access: 'public',
      operationId: 'probeSlow',
      summary: 'Answers after a delay',
      tags: ['probe'],
      request: { query: z.object({ ms: z.coerce.number().int().min(0).max(10_000) }) },
      responses: { 200: { description: 'Done', schema: z.object({ waitedMs: z.number() }) } },
      handler: async ({ query }) => {
        await sleep(query.ms);
        return { status: 200, body: { waitedMs: query.ms } };
      },
    }),
  ],
});
