-- Who deleted a directory row, shown with it among the directory's deleted rows.
ALTER TABLE directory_rows ADD COLUMN IF NOT EXISTS deleted_by uuid;
