-- Administrators list their organization's deleted tasks, most recently deleted first, to bring
-- them back (`GET /api/tasks/deleted`).
CREATE INDEX IF NOT EXISTS tasks_deleted_idx ON tasks (organization_id, deleted_at DESC, id DESC)
  WHERE deleted_at IS NOT NULL;
