-- Directories: reference tables whose rows may form trees; forms' `table` fields select their rows.
CREATE TABLE IF NOT EXISTS directories (
  id uuid PRIMARY KEY,
  organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  name text NOT NULL CHECK (length(btrim(name)) > 0),
  -- [{name, type}] in order; cells of rows follow this order.
  columns jsonb NOT NULL,
  parent_directory_id uuid REFERENCES directories (id),
  -- Rows of the parent directory this sub-directory is offered under (empty: all of them).
  parent_row_ids uuid[] NOT NULL DEFAULT '{}',
  tree_display_column_index integer NOT NULL DEFAULT 0,
  tree_column_index integer,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz
);
CREATE INDEX IF NOT EXISTS directories_organization_idx ON directories (organization_id, name, id) WHERE deleted_at IS NULL;

CREATE TABLE IF NOT EXISTS directory_rows (
  id uuid PRIMARY KEY,
  organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  directory_id uuid NOT NULL REFERENCES directories (id) ON DELETE CASCADE,
  parent_id uuid REFERENCES directory_rows (id),
  position integer NOT NULL DEFAULT 0,
  cells jsonb NOT NULL,
  -- Rows of the parent directory this row of a sub-directory is offered under (empty: all).
  parent_row_ids uuid[] NOT NULL DEFAULT '{}',
  -- Cells joined for substring search (trigram index).
  search_text text NOT NULL DEFAULT '',
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  -- A deleted row stays so tasks that selected it can show it as deleted.
  deleted_at timestamptz
);
CREATE INDEX IF NOT EXISTS directory_rows_directory_idx ON directory_rows (directory_id, parent_id, position, id) WHERE deleted_at IS NULL;
CREATE INDEX IF NOT EXISTS directory_rows_parent_idx ON directory_rows (parent_id);
CREATE INDEX IF NOT EXISTS directory_rows_search_trgm_idx ON directory_rows USING gin (search_text gin_trgm_ops);
