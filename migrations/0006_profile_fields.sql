-- User profile fields: fields the organization defines for its people, their current values, and
-- the append-only history of `history-number` fields (SPEC §1.3, §2.17).

CREATE TABLE IF NOT EXISTS profile_fields (
  id uuid PRIMARY KEY,
  organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  name text NOT NULL CHECK (length(btrim(name)) > 0),
  -- text, number, date, checkbox, select or history-number.
  type text NOT NULL,
  -- Choices of a `select` field; null for other types.
  options jsonb,
  position integer NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  -- A deleted field leaves lists and takes no values; its values and history stay.
  deleted_at timestamptz
);
CREATE INDEX IF NOT EXISTS profile_fields_organization_idx ON profile_fields (organization_id, position, id)
  WHERE deleted_at IS NULL;

-- Current values; for a `history-number` field the latest value written.
CREATE TABLE IF NOT EXISTS user_profile_values (
  organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  field_id uuid NOT NULL REFERENCES profile_fields (id) ON DELETE CASCADE,
  -- Normalised by type: numbers as decimal strings, dates as YYYY-MM-DD.
  value jsonb NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (user_id, field_id)
);
CREATE INDEX IF NOT EXISTS user_profile_values_field_idx ON user_profile_values (field_id);

-- Every value ever written to a `history-number` field, one row per write (the same value again too).
CREATE TABLE IF NOT EXISTS user_field_history (
  id uuid PRIMARY KEY,
  organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  field_id uuid NOT NULL REFERENCES profile_fields (id) ON DELETE CASCADE,
  value numeric NOT NULL,
  recorded_at timestamptz NOT NULL DEFAULT now(),
  actor_user_id uuid
);
CREATE INDEX IF NOT EXISTS user_field_history_user_field_idx ON user_field_history (user_id, field_id, recorded_at);
CREATE INDEX IF NOT EXISTS user_field_history_field_idx ON user_field_history (field_id);

-- Append-only: a history row is never changed. Deleting is left to the cascades from the user,
-- the field and the organization.
CREATE OR REPLACE FUNCTION user_field_history_append_only() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'user_field_history is append-only: rows are never updated'
    USING ERRCODE = 'restrict_violation';
END;
$$;
DROP TRIGGER IF EXISTS user_field_history_no_update ON user_field_history;
CREATE TRIGGER user_field_history_no_update BEFORE UPDATE ON user_field_history
  FOR EACH ROW EXECUTE FUNCTION user_field_history_append_only();
