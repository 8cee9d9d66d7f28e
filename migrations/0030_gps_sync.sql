-- GPS objects replicated to the desktop replicas of users with GPS module access (collection
-- `gps_objects`, read-only there). A new position stamps the object (the map opens offline on it);
-- `last_seen` alone does not. A deleted object leaves a tombstone.
ALTER TABLE gps_objects ADD COLUMN IF NOT EXISTS sync_xid xid8 NOT NULL DEFAULT pg_current_xact_id();
ALTER TABLE gps_objects ADD COLUMN IF NOT EXISTS sync_seq bigint NOT NULL DEFAULT nextval('sync_seq');
CREATE INDEX IF NOT EXISTS gps_objects_sync_idx ON gps_objects (organization_id, sync_xid, sync_seq);

DROP TRIGGER IF EXISTS sync_stamp ON gps_objects;
CREATE TRIGGER sync_stamp BEFORE INSERT OR UPDATE OF name, kind, tracker_id, group_id, settings, last_fix_time, last_gps_fix_at
  ON gps_objects FOR EACH ROW EXECUTE FUNCTION sync_stamp();

CREATE OR REPLACE FUNCTION sync_gps_object_tombstone() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO sync_tombstones (organization_id, collection, document_id) VALUES (OLD.organization_id, 'gps_objects', OLD.id)
  ON CONFLICT (collection, document_id) DO UPDATE SET deleted_at = now(), sync_xid = pg_current_xact_id(), sync_seq = nextval('sync_seq');
  RETURN OLD;
END $$;
DROP TRIGGER IF EXISTS sync_tombstone ON gps_objects;
CREATE TRIGGER sync_tombstone AFTER DELETE ON gps_objects FOR EACH ROW EXECUTE FUNCTION sync_gps_object_tombstone();
