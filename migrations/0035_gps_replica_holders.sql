-- An object is sent again to replicas when something they show of it changes: a message that only
-- moves `last_seen` (a heartbeat, a refused fix, an older one) does not stamp it. A bare
-- `UPDATE OF <columns>` trigger fires whenever a column is SET, changed or not.
DROP TRIGGER IF EXISTS sync_stamp ON gps_objects;
CREATE TRIGGER sync_stamp BEFORE INSERT ON gps_objects FOR EACH ROW EXECUTE FUNCTION sync_stamp();
DROP TRIGGER IF EXISTS sync_stamp_changed ON gps_objects;
CREATE TRIGGER sync_stamp_changed BEFORE UPDATE ON gps_objects FOR EACH ROW
  WHEN ((OLD.name, OLD.kind, OLD.tracker_id, OLD.group_id, OLD.settings, OLD.last_gps_fix_at, OLD.last_fix_time,
         OLD.last_lat, OLD.last_lon, OLD.last_speed_kmh, OLD.last_course, OLD.last_is_lbs, OLD.last_battery_percent)
        IS DISTINCT FROM
        (NEW.name, NEW.kind, NEW.tracker_id, NEW.group_id, NEW.settings, NEW.last_gps_fix_at, NEW.last_fix_time,
         NEW.last_lat, NEW.last_lon, NEW.last_speed_kmh, NEW.last_course, NEW.last_is_lbs, NEW.last_battery_percent))
  EXECUTE FUNCTION sync_stamp();

-- Users whose replicas were sent GPS records. Only they, once their access is withdrawn, are sent
-- the tombstones that clear those records: a checkpoint made up by anyone else brings nothing.
CREATE TABLE IF NOT EXISTS gps_replica_holders (
  organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  PRIMARY KEY (organization_id, user_id)
);
CREATE INDEX IF NOT EXISTS gps_replica_holders_user_idx ON gps_replica_holders (user_id);

-- Replicas may hold GPS records from before holders were noted: everyone with GPS access now.
INSERT INTO gps_replica_holders (organization_id, user_id)
SELECT u.organization_id, u.id FROM users u
 WHERE u.is_admin
    OR EXISTS (SELECT 1 FROM module_access a WHERE a.module = 'gps' AND a.user_id = u.id)
    OR EXISTS (SELECT 1 FROM module_access a JOIN role_members m ON m.role_id = a.role_id
                WHERE a.module = 'gps' AND m.user_id = u.id)
ON CONFLICT DO NOTHING;
