import type { ApiKeySummary, Bot } from '@shared/api/bots';
import type { ApiKeyRow, BotRow } from './bots.repo';

/** A key as people see it: never the raw key nor its hash. NULL scopes (legacy keys) are full access. */
export function presentKey(row: ApiKeyRow): ApiKeySummary {
  return {
    id: row.id,
    prefix: row.prefix,
    last4: row.last4,
    mode: row.scopes?.mode ?? 'full',
    formIds: row.scopes?.formIds ?? null,
    tableIds: row.scopes?.tableIds ?? null,
    createdAt: row.created_at.toISOString(),
    lastUsedAt: row.last_used_at?.toISOString() ?? null,
  };
}

export function presentBot(row: BotRow, key: ApiKeyRow | undefined): Bot {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    avatar: row.avatar,
    apiKey: key ? presentKey(key) : null,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}
