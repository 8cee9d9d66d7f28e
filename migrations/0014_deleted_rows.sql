-- A directory's deleted rows, most recently deleted first, to restore one
-- (`GET /api/directories/:directoryId/rows/deleted`).
CREATE INDEX IF NOT EXISTS directory_rows_deleted_idx ON directory_rows (directory_id, deleted_at DESC, id DESC)
  WHERE deleted_at IS NOT NULL;
