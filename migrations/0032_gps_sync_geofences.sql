-- GPS groups ride in the replicas' `gps_objects` collection (read-only there); geofences and routes
-- in `gps_geofences`, written offline too and merged on the server field by field. Every write
-- stamps them; a deletion leaves a tombstone in its collection. A version (`updated_at`) moves at
-- least a millisecond per write, as for tasks and rows: a push without a base names the version it
-- was edited from.
DO $$
DECLARE
  replicated text[] := ARRAY['gps_groups', 'gps_geofences', 'gps_routes'];
  t text;
BEGIN
  FOREACH t IN ARRAY replicated LOOP
    EXECUTE format('ALTER TABLE %I ADD COLUMN IF NOT EXISTS sync_xid xid8 NOT NULL DEFAULT pg_current_xact_id()', t);
    EXECUTE format('ALTER TABLE %I ADD COLUMN IF NOT EXISTS sync_seq bigint NOT NULL DEFAULT nextval(''sync_seq'')', t);
    EXECUTE format('CREATE INDEX IF NOT EXISTS %I ON %I (organization_id, sync_xid, sync_seq)', t || '_sync_idx', t);
    EXECUTE format('DROP TRIGGER IF EXISTS sync_stamp ON %I', t);
    EXECUTE format('CREATE TRIGGER sync_stamp BEFORE INSERT OR UPDATE ON %I FOR EACH ROW EXECUTE FUNCTION sync_stamp()', t);
    EXECUTE format('DROP TRIGGER IF EXISTS sync_version ON %I', t);
    EXECUTE format('CREATE TRIGGER sync_version BEFORE UPDATE ON %I FOR EACH ROW EXECUTE FUNCTION sync_version()', t);
  END LOOP;
END $$;

-- The collection a deleted record's tombstone belongs to is the trigger's argument.
CREATE OR REPLACE FUNCTION sync_gps_tombstone() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO sync_tombstones (organization_id, collection, document_id) VALUES (OLD.organization_id, TG_ARGV[0], OLD.id)
  ON CONFLICT (collection, document_id) DO UPDATE SET deleted_at = now(), sync_xid = pg_current_xact_id(), sync_seq = nextval('sync_seq');
  RETURN OLD;
END $$;
DROP TRIGGER IF EXISTS sync_tombstone ON gps_groups;
CREATE TRIGGER sync_tombstone AFTER DELETE ON gps_groups FOR EACH ROW EXECUTE FUNCTION sync_gps_tombstone('gps_objects');
DROP TRIGGER IF EXISTS sync_tombstone ON gps_geofences;
CREATE TRIGGER sync_tombstone AFTER DELETE ON gps_geofences FOR EACH ROW EXECUTE FUNCTION sync_gps_tombstone('gps_geofences');
DROP TRIGGER IF EXISTS sync_tombstone ON gps_routes;
CREATE TRIGGER sync_tombstone AFTER DELETE ON gps_routes FOR EACH ROW EXECUTE FUNCTION sync_gps_tombstone('gps_geofences');
