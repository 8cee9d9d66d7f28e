-- A replica names the server version a document was edited from by its updatedAt, to the
-- millisecond (documents carry JSON timestamps). Every write of a record that replicas edit gets
-- a version of its own at that precision: later than the one before by at least a millisecond,
-- even when two writes fall within one millisecond or one transaction (now() does not move).
CREATE OR REPLACE FUNCTION sync_version() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.updated_at := greatest(NEW.updated_at, date_trunc('milliseconds', OLD.updated_at) + interval '1 millisecond');
  RETURN NEW;
END $$;

DROP TRIGGER IF EXISTS sync_version ON tasks;
CREATE TRIGGER sync_version BEFORE UPDATE ON tasks FOR EACH ROW EXECUTE FUNCTION sync_version();
DROP TRIGGER IF EXISTS sync_version ON directory_rows;
CREATE TRIGGER sync_version BEFORE UPDATE ON directory_rows FOR EACH ROW EXECUTE FUNCTION sync_version();
