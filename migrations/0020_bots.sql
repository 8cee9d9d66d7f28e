-- Bots: how machines act in an organization, over REST and MCP with their API key.
CREATE TABLE IF NOT EXISTS bots (
  id uuid PRIMARY KEY,
  organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  name text NOT NULL,
  description text NOT NULL DEFAULT '',
  avatar text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  -- Deleted bots keep their row: audit rows and history name them by id.
  deleted_at timestamptz
);
CREATE INDEX IF NOT EXISTS bots_organization ON bots (organization_id, created_at, id) WHERE deleted_at IS NULL;

-- Organization API keys: only the SHA-256 hex of the raw key is kept; prefix and last 4 characters
-- let people recognise a key. A key belongs to at most one bot, a bot has at most one key.
CREATE TABLE IF NOT EXISTS organization_api_keys (
  id uuid PRIMARY KEY,
  organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  bot_id uuid REFERENCES bots (id) ON DELETE CASCADE,
  key_hash text NOT NULL,
  prefix text NOT NULL,
  last4 text NOT NULL,
  -- {mode: 'read'|'write'|'full', formIds?, tableIds?}; NULL: full access (legacy keys).
  scopes jsonb,
  created_at timestamptz NOT NULL DEFAULT now(),
  last_used_at timestamptz
);
CREATE UNIQUE INDEX IF NOT EXISTS organization_api_keys_hash ON organization_api_keys (key_hash);
CREATE UNIQUE INDEX IF NOT EXISTS organization_api_keys_bot ON organization_api_keys (bot_id) WHERE bot_id IS NOT NULL;
