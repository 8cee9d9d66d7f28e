import { z } from 'zod';
import { endpoint } from './endpoint';

/** What a key may do: `read` only reads; `write` also writes data; `full` also uses administrators' data routes. */
export const ApiKeyMode = z.enum(['read', 'write', 'full']).meta({ id: 'ApiKeyMode' });
export type ApiKeyMode = z.infer<typeof ApiKeyMode>;

/** The recognisable start of every raw API key. */
export const API_KEY_PREFIX = 'orb_';

const IdList = z.array(z.uuid()).max(1000);

/** A key's scopes: its mode and the forms and directories it reaches (absent: all of them; `[]`: none). */
export const ApiKeyScopes = z
  .object({
    mode: ApiKeyMode,
    formIds: IdList.optional().meta({ description: 'Forms the key reaches; absent: every form; []: none' }),
    tableIds: IdList.optional().meta({
      description: 'Directories the key reaches; absent: every directory; []: none',
    }),
  })
  .strict()
  .meta({ id: 'ApiKeyScopes' });
export type ApiKeyScopes = z.infer<typeof ApiKeyScopes>;

/** A bot's API access as sent on its creation and update: `enabled: false` deletes its key. */
export const ApiAccess = z
  .object({
    enabled: z.boolean(),
    mode: ApiKeyMode.optional().meta({ description: 'Required when enabled' }),
    formIds: IdList.optional().meta({ description: 'Forms the key reaches; absent: every form; []: none' }),
    tableIds: IdList.optional().meta({ description: 'Directories the key reaches; absent: every directory; []: none' }),
  })
  .strict()
  .superRefine((access, context) => {
    if (access.enabled && access.mode === undefined) {
      context.addIssue({ code: 'custom', path: ['mode'], message: 'Choose the key’s mode: read, write or full' });
    }
  })
  .meta({ id: 'ApiAccess' });
export type ApiAccess = z.infer<typeof ApiAccess>;

export const BotRequest = z
  .object({
    name: z.string().trim().min(1, 'Enter a name').max(200),
    description: z.string().max(2000).optional(),
    avatar: z.string().max(2048).nullable().optional().meta({ description: 'Address of the bot’s picture' }),
    apiAccess: ApiAccess.optional().meta({ description: 'Absent on update: the key stays as it is' }),
  })
  .meta({ id: 'BotRequest' });

/** A key as shown after its creation: never the raw key nor its hash. */
export const ApiKeySummary = z
  .object({
    id: z.uuid(),
    prefix: z.string(),
    last4: z.string(),
    mode: ApiKeyMode,
    formIds: z.array(z.uuid()).nullable().meta({ description: 'null: every form' }),
    tableIds: z.array(z.uuid()).nullable().meta({ description: 'null: every directory' }),
    createdAt: z.iso.datetime(),
    lastUsedAt: z.iso.datetime().nullable(),
  })
  .meta({ id: 'ApiKeySummary' });
export type ApiKeySummary = z.infer<typeof ApiKeySummary>;

/** A key just created or regenerated: the summary and, this once, the raw key. */
export const NewApiKey = ApiKeySummary.extend({
  key: z.string().meta({ description: 'The raw key, shown only in this response: keep it now' }),
}).meta({ id: 'NewApiKey' });

export const Bot = z
  .object({
    id: z.uuid(),
    name: z.string(),
    description: z.string(),
    avatar: z.string().nullable(),
    apiKey: ApiKeySummary.nullable(),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
  })
  .meta({ id: 'Bot' });
export type Bot = z.infer<typeof Bot>;

/** A bot as its creation or update answers: `apiKey.key` is there when that call made a new key. */
export const SavedBot = Bot.extend({
  apiKey: z.union([NewApiKey, ApiKeySummary]).nullable(),
}).meta({ id: 'SavedBot' });

export const BotList = z.object({ items: z.array(Bot) }).meta({ id: 'BotList' });

export const UpdateKeyScopesRequest = z
  .object({ scopes: ApiKeyScopes.nullable().meta({ description: 'null: full access to everything' }) })
  .strict()
  .meta({ id: 'UpdateKeyScopesRequest' });

const BotParams = z.object({ botId: z.uuid() });
const KeyParams = z.object({ keyId: z.uuid() });

/** Bots and their API keys (administrators). */
export const botsApi = {
  listBots: endpoint({
    method: 'get',
    path: '/api/bots',
    operationId: 'listBots',
    summary: 'The organization’s bots, each with its key’s summary',
    tags: ['bots'],
    responses: { 200: { description: 'Bots', schema: BotList } },
  }),
  createBot: endpoint({
    method: 'post',
    path: '/api/bots',
    operationId: 'createBot',
    summary: 'Create a bot, and its API key when `apiAccess.enabled`',
    description:
      'The raw key is in `apiKey.key` of this response only; it is kept as its SHA-256. ' +
      'Unknown form or directory ids answer 400 naming them.',
    tags: ['bots'],
    request: { body: BotRequest },
    responses: { 201: { description: 'The bot', schema: SavedBot } },
  }),
  updateBot: endpoint({
    method: 'put',
    path: '/api/bots/:botId',
    operationId: 'updateBot',
    summary: 'Change a bot and its API access',
    description:
      '`apiAccess.enabled: false` deletes the key; enabling it again makes a new key, shown once in `apiKey.key`; ' +
      'an enabled key keeps its value and takes the new scopes.',
    tags: ['bots'],
    request: { params: BotParams, body: BotRequest },
    responses: { 200: { description: 'The bot', schema: SavedBot } },
  }),
  deleteBot: endpoint({
    method: 'delete',
    path: '/api/bots/:botId',
    operationId: 'deleteBot',
    summary: 'Delete a bot and its key (its key stops working at once)',
    tags: ['bots'],
    request: { params: BotParams },
    responses: { 204: { description: 'Deleted' } },
  }),
  regenerateBotKey: endpoint({
    method: 'post',
    path: '/api/bots/:botId/api-key/regenerate',
    operationId: 'regenerateBotKey',
    summary: 'Replace the bot’s key with a new one, shown once; the old key stops working at once',
    tags: ['bots'],
    request: { params: BotParams },
    responses: { 200: { description: 'The new key', schema: NewApiKey } },
  }),
  updateKeyScopes: endpoint({
    method: 'patch',
    path: '/api/mcp-keys/:keyId',
    operationId: 'updateKeyScopes',
    summary: 'Change a key’s scopes (null: full access)',
    description: 'Unknown form or directory ids answer 400 naming them.',
    tags: ['bots'],
    request: { params: KeyParams, body: UpdateKeyScopesRequest },
    responses: { 200: { description: 'The key', schema: ApiKeySummary } },
  }),
};
