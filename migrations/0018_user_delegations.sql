-- Substitutes of absent users: a default one (form_id null) and per-form ones, each for a period.
CREATE TABLE IF NOT EXISTS user_delegations (
  id uuid PRIMARY KEY,
  organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  substitute_user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  form_id uuid REFERENCES forms (id) ON DELETE CASCADE,
  starts_at timestamptz NOT NULL,
  ends_at timestamptz NOT NULL,
  created_by uuid,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CHECK (ends_at > starts_at),
  CHECK (user_id <> substitute_user_id)
);
CREATE INDEX IF NOT EXISTS user_delegations_user ON user_delegations (organization_id, user_id, starts_at);
CREATE INDEX IF NOT EXISTS user_delegations_ends ON user_delegations (ends_at);
