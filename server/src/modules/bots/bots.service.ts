import type { ApiAccess, ApiKeyScopes, ApiKeySummary, Bot, BotList, BotRequest } from '@shared/api/bots';
import type { ProblemFieldError } from '@shared/api/problem';
import type { z } from 'zod';
import { unauthenticated } from '../../platform/auth/access-tokens';
import type { BotActor } from '../../platform/auth/actor';
import type { AuthContext } from '../../platform/auth/auth-context';
import { sha256Hex } from '../../platform/auth/secrets';
import type { Queryable } from '../../platform/db/db';
import { inUnit, type UnitDeps } from '../../platform/db/unit-of-work';
import { Problem } from '../../platform/http/problem';
import { newId } from '../../platform/ids';
import { directoryKnown } from '../directories/directories.service';
import { findForm } from '../forms/forms.service';
import { generateKey, wellFormedKey } from './api-keys';
import { presentBot, presentKey } from './bots.presenter';
import * as repo from './bots.repo';

export type BotsDeps = Pick<UnitDeps, 'db' | 'events'>;

type BotInput = z.infer<typeof BotRequest>;

/** A key's summary with, this once, its raw value. */
type NewKey = ApiKeySummary & { key: string };

const botNotFound = (botId: string) => Problem.of('not_found', `There is no bot ${botId} in your organization.`);
const keyNotFound = (keyId: string) => Problem.of('not_found', `There is no API key ${keyId} in your organization.`);

/** The scopes kept for an API access: only the mode and the lists that were sent. */
function scopesOf(access: ApiAccess): ApiKeyScopes {
  return {
    mode: access.mode ?? 'read',
    ...(access.formIds ? { formIds: [...new Set(access.formIds)] } : {}),
    ...(access.tableIds ? { tableIds: [...new Set(access.tableIds)] } : {}),
  };
}

/** Refuses scopes naming forms or directories the organization does not have, naming each (400). */
async function checkScopes(tx: Queryable, organizationId: string, scopes: ApiKeyScopes | null, pointer: string) {
  if (!scopes) return;
  const errors: ProblemFieldError[] = [];
  for (const [index, formId] of (scopes.formIds ?? []).entries()) {
    if (!(await findForm(tx, organizationId, formId))) {
      errors.push({
        location: 'body',
        pointer: `${pointer}/formIds/${index}`,
        detail: `There is no form ${formId} in your organization`,
        code: 'unknown_form',
      });
    }
  }
  for (const [index, directoryId] of (scopes.tableIds ?? []).entries()) {
    if (!(await directoryKnown(tx, organizationId, directoryId))) {
      errors.push({
        location: 'body',
        pointer: `${pointer}/tableIds/${index}`,
        detail: `There is no directory ${directoryId} in your organization`,
        code: 'unknown_directory',
      });
    }
  }
  const first = errors[0];
  if (first) {
    const more = errors.length > 1 ? ` (and ${errors.length - 1} more)` : '';
    throw Problem.of('validation_failed', `${first.detail}${more}. Choose forms and directories that exist.`, {
      errors,
    });
  }
}

async function issueKey(tx: Queryable, organizationId: string, botId: string, scopes: ApiKeyScopes): Promise<NewKey> {
  const key = generateKey();
  const id = newId();
  await repo.insertKey(tx, {
    id,
    organizationId,
    botId,
    keyHash: key.hash,
    prefix: key.prefix,
    last4: key.last4,
    scopes,
  });
  const [row] = await repo.keysOfBots(tx, organizationId, [botId]);
  return { ...presentKey(row as repo.ApiKeyRow), key: key.raw };
}

export async function listBots(deps: Pick<BotsDeps, 'db'>, auth: AuthContext): Promise<z.infer<typeof BotList>> {
  const bots = await repo.listBots(deps.db, auth.organizationId);
  const keys = await repo.keysOfBots(
    deps.db,
    auth.organizationId,
    bots.map((bot) => bot.id),
  );
  return {
    items: bots.map((bot) =>
      presentBot(
        bot,
        keys.find((key) => key.bot_id === bot.id),
      ),
    ),
  };
}

async function savedBot(tx: Queryable, organizationId: string, botId: string, newKey: NewKey | undefined) {
  const bot = (await repo.findBot(tx, organizationId, botId)) as repo.BotRow;
  const [key] = await repo.keysOfBots(tx, organizationId, [botId]);
  const presented: Bot = presentBot(bot, key);
  return { ...presented, apiKey: newKey ?? presented.apiKey };
}

/** Creates a bot and, when its API access is enabled, its key, in one transaction; the raw key is in this answer only. */
export async function createBot(deps: BotsDeps, auth: AuthContext, input: BotInput) {
  return inUnit(deps, async (unit) => {
    const id = newId();
    const scopes = input.apiAccess?.enabled ? scopesOf(input.apiAccess) : null;
    await checkScopes(unit.tx, auth.organizationId, scopes, '#/apiAccess');
    await repo.insertBot(unit.tx, {
      id,
      organizationId: auth.organizationId,
      name: input.name,
      description: input.description ?? '',
      avatar: input.avatar ?? null,
    });
    const newKey = scopes ? await issueKey(unit.tx, auth.organizationId, id, scopes) : undefined;
    return savedBot(unit.tx, auth.organizationId, id, newKey);
  });
}

/**
 * Changes a bot and its API access in one transaction: disabled deletes the key; enabled keeps the
 * key with the new scopes, or makes one (shown once) when it had none; absent leaves the key alone.
 */
export async function updateBot(deps: BotsDeps, auth: AuthContext, botId: string, input: BotInput) {
  return inUnit(deps, async (unit) => {
    const bot = await repo.findBot(unit.tx, auth.organizationId, botId, true);
    if (!bot) throw botNotFound(botId);
    await repo.updateBot(unit.tx, auth.organizationId, botId, {
      name: input.name,
      description: input.description ?? bot.description,
      avatar: input.avatar === undefined ? bot.avatar : input.avatar,
    });
    let newKey: NewKey | undefined;
    const access = input.apiAccess;
    if (access && !access.enabled) {
      await repo.deleteKeysOfBot(unit.tx, auth.organizationId, botId);
    } else if (access) {
      const scopes = scopesOf(access);
      await checkScopes(unit.tx, auth.organizationId, scopes, '#/apiAccess');
      const [current] = await repo.keysOfBots(unit.tx, auth.organizationId, [botId]);
      if (current) await repo.updateKeyScopes(unit.tx, auth.organizationId, current.id, scopes);
      else newKey = await issueKey(unit.tx, auth.organizationId, botId, scopes);
    }
    return savedBot(unit.tx, auth.organizationId, botId, newKey);
  });
}

/** Deletes a bot and its key: the key stops working at once; records naming the bot keep its id. */
export async function deleteBot(deps: BotsDeps, auth: AuthContext, botId: string): Promise<void> {
  await inUnit(deps, async (unit) => {
    if (!(await repo.findBot(unit.tx, auth.organizationId, botId, true))) throw botNotFound(botId);
    await repo.deleteKeysOfBot(unit.tx, auth.organizationId, botId);
    await repo.softDeleteBot(unit.tx, auth.organizationId, botId);
  });
}

/** Replaces the bot's key with a new one of the same scopes; the old key stops working when this commits. */
export async function regenerateKey(deps: BotsDeps, auth: AuthContext, botId: string): Promise<NewKey> {
  return inUnit(deps, async (unit) => {
    if (!(await repo.findBot(unit.tx, auth.organizationId, botId, true))) throw botNotFound(botId);
    const [current] = await repo.keysOfBots(unit.tx, auth.organizationId, [botId]);
    if (!current) {
      throw Problem.of('conflict', 'The bot has no API access to regenerate. Enable its API access first.');
    }
    await repo.deleteKeysOfBot(unit.tx, auth.organizationId, botId);
    return issueKey(unit.tx, auth.organizationId, botId, current.scopes ?? { mode: 'full' });
  });
}

/** Sets a key's scopes (null: full access to everything). */
export async function updateKeyScopes(
  deps: BotsDeps,
  auth: AuthContext,
  keyId: string,
  scopes: ApiKeyScopes | null,
): Promise<ApiKeySummary> {
  return inUnit(deps, async (unit) => {
    if (!(await repo.findKey(unit.tx, auth.organizationId, keyId))) throw keyNotFound(keyId);
    const kept = scopes && {
      mode: scopes.mode,
      ...(scopes.formIds ? { formIds: [...new Set(scopes.formIds)] } : {}),
      ...(scopes.tableIds ? { tableIds: [...new Set(scopes.tableIds)] } : {}),
    };
    await checkScopes(unit.tx, auth.organizationId, kept, '#/scopes');
    await repo.updateKeyScopes(unit.tx, auth.organizationId, keyId, kept);
    return presentKey((await repo.findKey(unit.tx, auth.organizationId, keyId)) as repo.ApiKeyRow);
  });
}

const invalidKey = () =>
  unauthenticated(
    'The API key is not valid: it may have been regenerated or deleted. Ask an administrator for the bot’s current key.',
    'invalid_api_key',
  );

/** How often a key's `last_used_at` is written at most (per key and instance; the SQL also checks it). */
const TOUCH_INTERVAL_MS = 60_000;

/**
 * Resolves raw API keys to the bots they act as, for REST and for the MCP endpoint alike: a
 * malformed, unknown or deleted key is a 401 problem. Marks the key used at most once a minute.
 */
export function createKeyResolver(deps: Pick<BotsDeps, 'db'>): (rawKey: string) => Promise<BotActor> {
  const touched = new Map<string, number>();
  return async (rawKey) => {
    if (!wellFormedKey(rawKey)) throw invalidKey();
    const row = await repo.findKeyByHash(deps.db, sha256Hex(rawKey));
    if (!row) throw invalidKey();
    const now = Date.now();
    if (now - (touched.get(row.id) ?? 0) >= TOUCH_INTERVAL_MS) {
      touched.set(row.id, now);
      if (touched.size > 10_000) touched.clear();
      await repo.touchKey(deps.db, row.organization_id, row.id);
    }
    const scopes = row.scopes ?? { mode: 'full' as const };
    return {
      kind: 'bot',
      organizationId: row.organization_id,
      botId: row.bot_id,
      scopes: {
        mode: scopes.mode,
        ...(scopes.formIds ? { formIds: scopes.formIds } : {}),
        ...(scopes.tableIds ? { tableIds: scopes.tableIds } : {}),
      },
    };
  };
}
