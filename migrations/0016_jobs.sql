-- Durable jobs: written in the transaction of the change that causes them (an outbox), drained by
-- every server instance with FOR UPDATE SKIP LOCKED. organization_id is null for the installation's own work.
CREATE TABLE IF NOT EXISTS jobs (
  id uuid PRIMARY KEY,
  organization_id uuid REFERENCES organizations (id) ON DELETE CASCADE,
  kind text NOT NULL,
  payload jsonb NOT NULL DEFAULT '{}'::jsonb,
  unique_key text,
  state text NOT NULL DEFAULT 'queued' CHECK (state IN ('queued', 'running', 'succeeded', 'dead')),
  attempts integer NOT NULL DEFAULT 0,
  max_attempts integer NOT NULL DEFAULT 10,
  run_after timestamptz NOT NULL DEFAULT now(),
  leased_until timestamptz,
  last_error text,
  created_at timestamptz NOT NULL DEFAULT now(),
  finished_at timestamptz
);
CREATE UNIQUE INDEX IF NOT EXISTS jobs_kind_unique_key ON jobs (kind, unique_key) WHERE unique_key IS NOT NULL;
CREATE INDEX IF NOT EXISTS jobs_due ON jobs (run_after) WHERE state IN ('queued', 'running');
CREATE INDEX IF NOT EXISTS jobs_organization ON jobs (organization_id, created_at);
