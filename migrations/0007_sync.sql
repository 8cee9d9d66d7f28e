-- Change tracking for the desktop replicas. Every write of a replicated row stamps it with the
-- writing transaction's id (xid8) and a global sequence number. A pull returns only rows of
-- transactions older than the oldest one still running (pg_snapshot_xmin), ordered by
-- (sync_xid, sync_seq): rows committed later always sort after every checkpoint already handed out.
CREATE SEQUENCE IF NOT EXISTS sync_seq;

CREATE OR REPLACE FUNCTION sync_stamp() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.sync_xid := pg_current_xact_id();
  NEW.sync_seq := nextval('sync_seq');
  RETURN NEW;
END $$;

-- A change of a child table (assignees of a task, members of a role) is a change of its parent document.
CREATE OR REPLACE FUNCTION sync_touch_task() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE tasks SET updated_at = now() WHERE id = COALESCE(NEW.task_id, OLD.task_id);
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION sync_touch_role() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE roles SET updated_at = now() WHERE id = COALESCE(NEW.role_id, OLD.role_id);
  RETURN NULL;
END $$;

-- Hard deletions (roles) leave a tombstone to replicate.
CREATE TABLE IF NOT EXISTS sync_tombstones (
  organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  collection text NOT NULL,
  document_id uuid NOT NULL,
  deleted_at timestamptz NOT NULL DEFAULT now(),
  sync_xid xid8 NOT NULL DEFAULT pg_current_xact_id(),
  sync_seq bigint NOT NULL DEFAULT nextval('sync_seq'),
  PRIMARY KEY (collection, document_id)
);
CREATE INDEX IF NOT EXISTS sync_tombstones_order_idx ON sync_tombstones (organization_id, collection, sync_xid, sync_seq);

CREATE OR REPLACE FUNCTION sync_tombstone_role() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO sync_tombstones (organization_id, collection, document_id) VALUES (OLD.organization_id, 'roles', OLD.id)
  ON CONFLICT (collection, document_id) DO UPDATE SET deleted_at = now(), sync_xid = pg_current_xact_id(), sync_seq = nextval('sync_seq');
  RETURN OLD;
END $$;

DO $$
DECLARE
  replicated text[] := ARRAY['tasks', 'forms', 'form_statuses', 'directories', 'directory_rows', 'users', 'roles'];
  t text;
BEGIN
  FOREACH t IN ARRAY replicated LOOP
    EXECUTE format('ALTER TABLE %I ADD COLUMN IF NOT EXISTS sync_xid xid8 NOT NULL DEFAULT pg_current_xact_id()', t);
    EXECUTE format('ALTER TABLE %I ADD COLUMN IF NOT EXISTS sync_seq bigint NOT NULL DEFAULT nextval(''sync_seq'')', t);
    EXECUTE format('CREATE INDEX IF NOT EXISTS %I ON %I (organization_id, sync_xid, sync_seq)', t || '_sync_idx', t);
    EXECUTE format('DROP TRIGGER IF EXISTS sync_stamp ON %I', t);
    EXECUTE format('CREATE TRIGGER sync_stamp BEFORE INSERT OR UPDATE ON %I FOR EACH ROW EXECUTE FUNCTION sync_stamp()', t);
  END LOOP;
END $$;

DROP TRIGGER IF EXISTS sync_touch_task ON task_assignees;
CREATE TRIGGER sync_touch_task AFTER INSERT OR UPDATE OR DELETE ON task_assignees FOR EACH ROW EXECUTE FUNCTION sync_touch_task();
DROP TRIGGER IF EXISTS sync_touch_role ON role_members;
CREATE TRIGGER sync_touch_role AFTER INSERT OR UPDATE OR DELETE ON role_members FOR EACH ROW EXECUTE FUNCTION sync_touch_role();
DROP TRIGGER IF EXISTS sync_tombstone_role ON roles;
CREATE TRIGGER sync_tombstone_role BEFORE DELETE ON roles FOR EACH ROW EXECUTE FUNCTION sync_tombstone_role();
