import { botsApi } from '@shared/api/bots';
import { defineRoute } from '../../platform/http/routes';
import * as bots from './bots.service';

/** Bots and their keys: administrators only, never through a key. */
export function botsRoutes(deps: bots.BotsDeps) {
  return [
    defineRoute({
      ...botsApi.listBots,
      access: 'admin',
      handler: async ({ auth }) => ({ status: 200, body: await bots.listBots(deps, auth) }),
    }),
    defineRoute({
      ...botsApi.createBot,
      access: 'admin',
      handler: async ({ auth, body }) => ({ status: 201, body: await bots.createBot(deps, auth, body) }),
    }),
    defineRoute({
      ...botsApi.updateBot,
      access: 'admin',
      handler: async ({ auth, params, body }) => ({
        status: 200,
        body: await bots.updateBot(deps, auth, params.botId, body),
      }),
    }),
    defineRoute({
      ...botsApi.deleteBot,
      access: 'admin',
      handler: async ({ auth, params }) => {
        await bots.deleteBot(deps, auth, params.botId);
        return { status: 204 };
      },
    }),
    defineRoute({
      ...botsApi.regenerateBotKey,
      access: 'admin',
      handler: async ({ auth, params }) => ({ status: 200, body: await bots.regenerateKey(deps, auth, params.botId) }),
    }),
    defineRoute({
      ...botsApi.updateKeyScopes,
      access: 'admin',
      handler: async ({ auth, params, body }) => ({
        status: 200,
        body: await bots.updateKeyScopes(deps, auth, params.keyId, body.scopes),
      }),
    }),
  ];
}
