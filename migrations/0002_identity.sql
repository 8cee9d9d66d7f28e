-- Users: members of one organization. E-mail is unique across the installation (sign-in names no
-- organization). password_hash is NULL until an invited user sets a password.
CREATE TABLE IF NOT EXISTS users (
  id uuid PRIMARY KEY,
  organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  email text NOT NULL CHECK (email = lower(email)),
  name text NOT NULL CHECK (length(btrim(name)) > 0),
  password_hash text,
  is_admin boolean NOT NULL DEFAULT false,
  status text NOT NULL DEFAULT 'active' CHECK (status IN ('invited', 'active', 'deactivated')),
  locale text NOT NULL DEFAULT 'ru' CHECK (locale IN ('ru', 'en')),
  -- Lowercase hex SHA-256 of the password-reset (or invitation) token; the token itself is never stored.
  reset_token_hash text,
  reset_token_expires_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX IF NOT EXISTS users_email_key ON users (email);
CREATE UNIQUE INDEX IF NOT EXISTS users_reset_token_hash_key ON users (reset_token_hash);
CREATE INDEX IF NOT EXISTS users_organization_idx ON users (organization_id, name, id);

-- Sessions: one per refresh token. Rotation replaces a session by a new one of the same family.
CREATE TABLE IF NOT EXISTS user_sessions (
  id uuid PRIMARY KEY,
  organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  family_id uuid NOT NULL,
  -- Lowercase hex SHA-256 of the refresh token; lookups and revocation go through it.
  refresh_token_hash text NOT NULL,
  replaced_by_session_id uuid REFERENCES user_sessions (id) ON DELETE SET NULL,
  replaced_at timestamptz,
  revoked_at timestamptz,
  revoked_reason text,
  expires_at timestamptz NOT NULL,
  user_agent text,
  ip_address text,
  created_at timestamptz NOT NULL DEFAULT now(),
  CHECK (refresh_token_hash ~ '^[0-9a-f]{64}$')
);
CREATE UNIQUE INDEX IF NOT EXISTS user_sessions_refresh_token_hash_key ON user_sessions (refresh_token_hash);
CREATE INDEX IF NOT EXISTS user_sessions_family_idx ON user_sessions (family_id);
CREATE INDEX IF NOT EXISTS user_sessions_user_idx ON user_sessions (user_id);

CREATE TABLE IF NOT EXISTS roles (
  id uuid PRIMARY KEY,
  organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  name text NOT NULL CHECK (length(btrim(name)) > 0),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX IF NOT EXISTS roles_organization_name_key ON roles (organization_id, lower(name));

CREATE TABLE IF NOT EXISTS role_members (
  organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  role_id uuid NOT NULL REFERENCES roles (id) ON DELETE CASCADE,
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  PRIMARY KEY (role_id, user_id)
);
CREATE INDEX IF NOT EXISTS role_members_user_idx ON role_members (user_id);

-- The GPS / Finance access matrix: a grant names a user or a role, never both.
CREATE TABLE IF NOT EXISTS module_access (
  organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  module text NOT NULL CHECK (module IN ('gps', 'finance')),
  user_id uuid REFERENCES users (id) ON DELETE CASCADE,
  role_id uuid REFERENCES roles (id) ON DELETE CASCADE,
  CHECK ((user_id IS NULL) <> (role_id IS NULL))
);
CREATE UNIQUE INDEX IF NOT EXISTS module_access_user_key ON module_access (module, user_id) WHERE user_id IS NOT NULL;
CREATE UNIQUE INDEX IF NOT EXISTS module_access_role_key ON module_access (module, role_id) WHERE role_id IS NOT NULL;
CREATE INDEX IF NOT EXISTS module_access_organization_idx ON module_access (organization_id);

-- Failed sign-in counters, per account (e-mail) and per client address. Keys, not tenant records.
CREATE TABLE IF NOT EXISTS login_throttle (
  key text PRIMARY KEY,
  failures integer NOT NULL,
  window_started_at timestamptz NOT NULL,
  locked_until timestamptz
);

-- Installation-wide secrets (the JWT signing key when JWT_SECRET is not set), shared by every instance.
CREATE TABLE IF NOT EXISTS installation_secrets (
  name text PRIMARY KEY,
  value text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
