import type { ApiKeyScopes } from '@shared/api/bots';
import type { Queryable } from '../../platform/db/db';

export interface BotRow {
  id: string;
  organization_id: string;
  name: string;
  description: string;
  avatar: string | null;
  created_at: Date;
  updated_at: Date;
}

export interface ApiKeyRow {
  id: string;
  organization_id: string;
  bot_id: string | null;
  prefix: string;
  last4: string;
  scopes: ApiKeyScopes | null;
  created_at: Date;
  last_used_at: Date | null;
}

const BOT_COLUMNS = 'id, organization_id, name, description, avatar, created_at, updated_at';
const KEY_COLUMNS = 'id, organization_id, bot_id, prefix, last4, scopes, created_at, last_used_at';

export async function listBots(db: Queryable, organizationId: string): Promise<BotRow[]> {
  const { rows } = await db.query<BotRow>(
    `SELECT ${BOT_COLUMNS} FROM bots WHERE organization_id = $1 AND deleted_at IS NULL ORDER BY created_at, id`,
    [organizationId],
  );
  return rows;
}

/** The live bot, locked for the rest of the transaction when `lock` (its key changes one at a time). */
export async function findBot(
  db: Queryable,
  organizationId: string,
  botId: string,
  lock = false,
): Promise<BotRow | undefined> {
  const { rows } = await db.query<BotRow>(
    `SELECT ${BOT_COLUMNS} FROM bots WHERE organization_id = $1 AND id = $2 AND deleted_at IS NULL${lock ? ' FOR UPDATE' : ''}`,
    [organizationId, botId],
  );
  return rows[0];
}

export async function insertBot(
  db: Queryable,
  bot: { id: string; organizationId: string; name: string; description: string; avatar: string | null },
): Promise<void> {
  await db.query('INSERT INTO bots (id, organization_id, name, description, avatar) VALUES ($1, $2, $3, $4, $5)', [
    bot.id,
    bot.organizationId,
    bot.name,
    bot.description,
    bot.avatar,
  ]);
}

export async function updateBot(
  db: Queryable,
  organizationId: string,
  botId: string,
  next: { name: string; description: string; avatar: string | null },
): Promise<void> {
  await db.query(
    `UPDATE bots SET name = $3, description = $4, avatar = $5, updated_at = now()
      WHERE organization_id = $1 AND id = $2`,
    [organizationId, botId, next.name, next.description, next.avatar],
  );
}

export async function softDeleteBot(db: Queryable, organizationId: string, botId: string): Promise<void> {
  await db.query('UPDATE bots SET deleted_at = now(), updated_at = now() WHERE organization_id = $1 AND id = $2', [
    organizationId,
    botId,
  ]);
}

export async function keysOfBots(
  db: Queryable,
  organizationId: string,
  botIds: readonly string[],
): Promise<ApiKeyRow[]> {
  if (botIds.length === 0) return [];
  const { rows } = await db.query<ApiKeyRow>(
    `SELECT ${KEY_COLUMNS} FROM organization_api_keys WHERE organization_id = $1 AND bot_id = ANY($2::uuid[])`,
    [organizationId, botIds],
  );
  return rows;
}

export async function findKey(db: Queryable, organizationId: string, keyId: string): Promise<ApiKeyRow | undefined> {
  const { rows } = await db.query<ApiKeyRow>(
    `SELECT ${KEY_COLUMNS} FROM organization_api_keys WHERE organization_id = $1 AND id = $2 FOR UPDATE`,
    [organizationId, keyId],
  );
  return rows[0];
}

export async function insertKey(
  db: Queryable,
  key: {
    id: string;
    organizationId: string;
    botId: string;
    keyHash: string;
    prefix: string;
    last4: string;
    scopes: ApiKeyScopes | null;
  },
): Promise<void> {
  await db.query(
    `INSERT INTO organization_api_keys (id, organization_id, bot_id, key_hash, prefix, last4, scopes)
     VALUES ($1, $2, $3, $4, $5, $6, $7)`,
    [
      key.id,
      key.organizationId,
      key.botId,
      key.keyHash,
      key.prefix,
      key.last4,
      key.scopes === null ? null : JSON.stringify(key.scopes),
    ],
  );
}

export async function updateKeyScopes(
  db: Queryable,
  organizationId: string,
  keyId: string,
  scopes: ApiKeyScopes | null,
): Promise<void> {
  await db.query('UPDATE organization_api_keys SET scopes = $3 WHERE organization_id = $1 AND id = $2', [
    organizationId,
    keyId,
    scopes === null ? null : JSON.stringify(scopes),
  ]);
}

export async function deleteKeysOfBot(db: Queryable, organizationId: string, botId: string): Promise<void> {
  await db.query('DELETE FROM organization_api_keys WHERE organization_id = $1 AND bot_id = $2', [
    organizationId,
    botId,
  ]);
}

/** What authenticating a key needs: the key of a live bot with this hash (installation-wide, by hash). */
export interface KeyOwnerRow {
  id: string;
  organization_id: string;
  bot_id: string;
  scopes: ApiKeyScopes | null;
}

export async function findKeyByHash(db: Queryable, keyHash: string): Promise<KeyOwnerRow | undefined> {
  const { rows } = await db.query<KeyOwnerRow>(
    `SELECT k.id, k.organization_id, k.bot_id, k.scopes
       FROM organization_api_keys k
       JOIN bots b ON b.id = k.bot_id AND b.organization_id = k.organization_id AND b.deleted_at IS NULL
      WHERE k.key_hash = $1`,
    [keyHash],
  );
  return rows[0];
}

/** Marks the key used now, unless it was marked within the last minute (by any instance). */
export async function touchKey(db: Queryable, organizationId: string, keyId: string): Promise<void> {
  await db.query(
    `UPDATE organization_api_keys SET last_used_at = now()
      WHERE organization_id = $1 AND id = $2 AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')`,
    [organizationId, keyId],
  );
}
