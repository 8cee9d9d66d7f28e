-- A deleted row remembers the children its deletion moved up into its place, so that restoring it
-- (`POST /api/directories/:directoryId/rows/:rowId/restore`, or an undo pushed by a replica) puts
-- back under it those still where the deletion left them.
ALTER TABLE directory_rows ADD COLUMN IF NOT EXISTS moved_up_ids uuid[];
