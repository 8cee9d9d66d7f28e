-- Automations: code run in a sandbox on a trigger (a task's status change, or daily at a Moscow time).
CREATE TABLE IF NOT EXISTS automations (
  id uuid PRIMARY KEY,
  organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  name text NOT NULL,
  enabled boolean NOT NULL DEFAULT true,
  trigger text NOT NULL CHECK (trigger IN ('task.status_changed', 'schedule')),
  trigger_config jsonb NOT NULL DEFAULT '{}'::jsonb,
  code text NOT NULL,
  -- The planned time of the last scheduled run claimed: a day's run is claimed once.
  last_scheduled_run_at timestamptz,
  created_by uuid,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS automations_organization ON automations (organization_id, created_at, id);
CREATE INDEX IF NOT EXISTS automations_scheduled ON automations (trigger) WHERE enabled;

CREATE TABLE IF NOT EXISTS automation_runs (
  id uuid PRIMARY KEY,
  organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  automation_id uuid NOT NULL REFERENCES automations (id) ON DELETE CASCADE,
  trigger_data jsonb NOT NULL,
  task_id uuid,
  status text NOT NULL CHECK (status IN ('succeeded', 'failed', 'timed_out', 'out_of_memory')),
  duration_ms double precision NOT NULL,
  logs jsonb NOT NULL DEFAULT '[]'::jsonb,
  error text,
  error_line integer,
  started_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS automation_runs_automation ON automation_runs (automation_id, started_at DESC, id DESC);

-- Who acted, beside a user or a bot: an automation.
ALTER TABLE task_audit_log ADD COLUMN IF NOT EXISTS automation_id uuid;
ALTER TABLE field_history ADD COLUMN IF NOT EXISTS automation_id uuid;
ALTER TABLE task_messages ADD COLUMN IF NOT EXISTS automation_id uuid;
