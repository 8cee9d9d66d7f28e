-- Trigram indexes (task search, directory search) need pg_trgm.
CREATE EXTENSION IF NOT EXISTS pg_trgm;

-- Every record of the product belongs to an organization (tenant).
CREATE TABLE IF NOT EXISTS organizations (
  id uuid PRIMARY KEY,
  name text NOT NULL CHECK (length(btrim(name)) > 0),
  active_skin_id uuid,
  health_schedule_enabled boolean NOT NULL DEFAULT false,
  billing_blocked boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
