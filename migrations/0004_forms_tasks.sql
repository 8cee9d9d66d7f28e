-- Forms define fields and a workflow of statuses; tasks are instances of forms.

CREATE TABLE IF NOT EXISTS forms (
  id uuid PRIMARY KEY,
  organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  name text NOT NULL CHECK (length(btrim(name)) > 0),
  qr_generation_enabled boolean NOT NULL DEFAULT false,
  -- Roles whose members may see and create the form's tasks; empty means every member.
  visible_role_ids uuid[] NOT NULL DEFAULT '{}',
  created_by uuid,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  -- A deleted form keeps its tasks readable; it takes no new tasks.
  deleted_at timestamptz
);
CREATE INDEX IF NOT EXISTS forms_organization_idx ON forms (organization_id, name, id) WHERE deleted_at IS NULL;

CREATE TABLE IF NOT EXISTS form_fields (
  id uuid PRIMARY KEY,
  organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  form_id uuid NOT NULL REFERENCES forms (id) ON DELETE CASCADE,
  name text NOT NULL CHECK (length(btrim(name)) > 0),
  type text NOT NULL,
  required boolean NOT NULL DEFAULT false,
  options jsonb,
  allow_multiple boolean NOT NULL DEFAULT false,
  directory_id uuid,
  display_column text,
  position integer NOT NULL,
  -- A removed field keeps its history and its values in existing tasks.
  deleted_at timestamptz
);
CREATE INDEX IF NOT EXISTS form_fields_form_idx ON form_fields (form_id, position);

CREATE TABLE IF NOT EXISTS form_statuses (
  id uuid PRIMARY KEY,
  organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  form_id uuid NOT NULL REFERENCES forms (id) ON DELETE CASCADE,
  name text NOT NULL CHECK (length(btrim(name)) > 0),
  is_initial boolean NOT NULL DEFAULT false,
  is_final boolean NOT NULL DEFAULT false,
  position integer NOT NULL,
  deleted_at timestamptz
);
CREATE INDEX IF NOT EXISTS form_statuses_form_idx ON form_statuses (form_id, position);
-- Exactly one initial status per form (at most one enforced here, at least one by the service).
CREATE UNIQUE INDEX IF NOT EXISTS form_statuses_one_initial ON form_statuses (form_id) WHERE is_initial AND deleted_at IS NULL;

CREATE TABLE IF NOT EXISTS form_transitions (
  organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  form_id uuid NOT NULL REFERENCES forms (id) ON DELETE CASCADE,
  from_status_id uuid NOT NULL REFERENCES form_statuses (id) ON DELETE CASCADE,
  to_status_id uuid NOT NULL REFERENCES form_statuses (id) ON DELETE CASCADE,
  PRIMARY KEY (from_status_id, to_status_id),
  CHECK (from_status_id <> to_status_id)
);
CREATE INDEX IF NOT EXISTS form_transitions_form_idx ON form_transitions (form_id);

CREATE TABLE IF NOT EXISTS tasks (
  id uuid PRIMARY KEY,
  organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  form_id uuid NOT NULL REFERENCES forms (id),
  status_id uuid NOT NULL REFERENCES form_statuses (id),
  title text NOT NULL,
  description text NOT NULL DEFAULT '',
  -- Field values by field id, normalised (numbers as strings, users as user:/role: entries).
  fields jsonb NOT NULL DEFAULT '{}',
  created_by uuid,
  created_by_bot_id uuid,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz
);
CREATE INDEX IF NOT EXISTS tasks_organization_updated_idx ON tasks (organization_id, updated_at, id);
CREATE INDEX IF NOT EXISTS tasks_form_idx ON tasks (organization_id, form_id, created_at DESC, id);
CREATE INDEX IF NOT EXISTS tasks_status_idx ON tasks (status_id);
-- Substring search (ILIKE '%q%') on title and description through trigram indexes (SPEC §8).
CREATE INDEX IF NOT EXISTS tasks_title_trgm_idx ON tasks USING gin (title gin_trgm_ops);
CREATE INDEX IF NOT EXISTS tasks_description_trgm_idx ON tasks USING gin (description gin_trgm_ops);

CREATE TABLE IF NOT EXISTS task_assignees (
  organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  task_id uuid NOT NULL REFERENCES tasks (id) ON DELETE CASCADE,
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  -- How the assignee came: manual, field (a user-type field), transition, tool (MCP), delegation.
  source text NOT NULL,
  source_field_id uuid,
  delegated_from_user_id uuid REFERENCES users (id) ON DELETE SET NULL,
  pending_review boolean NOT NULL DEFAULT false,
  added_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (task_id, user_id)
);
CREATE INDEX IF NOT EXISTS task_assignees_user_idx ON task_assignees (organization_id, user_id);

CREATE TABLE IF NOT EXISTS field_history (
  id uuid PRIMARY KEY,
  organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  task_id uuid NOT NULL REFERENCES tasks (id) ON DELETE CASCADE,
  field_id uuid NOT NULL,
  old_value jsonb,
  new_value jsonb,
  actor_user_id uuid,
  bot_id uuid,
  changed_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS field_history_task_id_idx ON field_history (task_id);

CREATE TABLE IF NOT EXISTS task_audit_log (
  id uuid PRIMARY KEY,
  organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  task_id uuid NOT NULL REFERENCES tasks (id) ON DELETE CASCADE,
  action text NOT NULL,
  actor_user_id uuid,
  bot_id uuid,
  details jsonb NOT NULL DEFAULT '{}',
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS task_audit_log_task_idx ON task_audit_log (task_id, created_at DESC);

CREATE TABLE IF NOT EXISTS task_messages (
  id uuid PRIMARY KEY,
  organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  task_id uuid NOT NULL REFERENCES tasks (id) ON DELETE CASCADE,
  author_user_id uuid,
  bot_id uuid,
  body text NOT NULL,
  mentioned_user_ids uuid[] NOT NULL DEFAULT '{}',
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS task_messages_task_idx ON task_messages (task_id, created_at, id);
CREATE INDEX IF NOT EXISTS task_messages_mentions_idx ON task_messages USING gin (mentioned_user_ids);

CREATE TABLE IF NOT EXISTS task_views (
  organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  task_id uuid NOT NULL REFERENCES tasks (id) ON DELETE CASCADE,
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  viewed_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (task_id, user_id)
);
CREATE INDEX IF NOT EXISTS task_views_user_idx ON task_views (organization_id, user_id, viewed_at DESC);

-- Idempotency keys of batch requests: the first result is replayed for a repeat of the key.
CREATE TABLE IF NOT EXISTS idempotency_keys (
  organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  key text NOT NULL,
  request_hash text NOT NULL,
  status integer,
  response jsonb,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (organization_id, key)
);
CREATE INDEX IF NOT EXISTS idempotency_keys_created_idx ON idempotency_keys (created_at);

ALTER TABLE organizations ADD COLUMN IF NOT EXISTS onboarding_dismissed_at timestamptz;
