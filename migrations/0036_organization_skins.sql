-- Organization skins (themes): design tokens an organization defines; one is the organization's
-- (`organizations.active_skin_id`), and each user may choose another of the same organization.
CREATE TABLE IF NOT EXISTS organization_skins (
  id uuid PRIMARY KEY,
  organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  name text NOT NULL CHECK (length(btrim(name)) > 0),
  tokens jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (organization_id, id)
);
CREATE UNIQUE INDEX IF NOT EXISTS organization_skins_name_key ON organization_skins (organization_id, lower(name));

-- The organization's skin is one of its own; deleting it leaves the organization on the default look.
DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_constraint WHERE conname = 'organizations_active_skin_fk') THEN
    UPDATE organizations SET active_skin_id = NULL WHERE active_skin_id IS NOT NULL;
    ALTER TABLE organizations ADD CONSTRAINT organizations_active_skin_fk
      FOREIGN KEY (id, active_skin_id) REFERENCES organization_skins (organization_id, id) ON DELETE SET NULL (active_skin_id);
  END IF;
END $$;

-- A user's own choice among the organization's skins (none: the organization's).
CREATE TABLE IF NOT EXISTS user_skin_choices (
  organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  user_id uuid PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
  skin_id uuid NOT NULL,
  FOREIGN KEY (organization_id, skin_id) REFERENCES organization_skins (organization_id, id) ON DELETE CASCADE
);
CREATE INDEX IF NOT EXISTS user_skin_choices_skin_idx ON user_skin_choices (skin_id);
