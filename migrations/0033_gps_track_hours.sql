-- Recent tracks on the replicas of GPS users (collection `gps_tracks`, read-only there): one
-- document per object and hour, its points read from gps_points when pulled. A row here stands for
-- such an hour: its id is derived from object and hour, so its deletion leaves a tombstone like
-- any record's. Ingestion only marks the hour `changed` (no write when already marked); the
-- `gps.track-hours` task stamps marked hours about once a minute, so a moving object's hour is
-- sent again at that pace rather than with every point, and deletes hours out of the window.
CREATE TABLE IF NOT EXISTS gps_track_hours (
  id uuid PRIMARY KEY,
  organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  object_id uuid NOT NULL REFERENCES gps_objects (id) ON DELETE CASCADE,
  hour timestamptz NOT NULL,
  changed boolean NOT NULL DEFAULT true,
  sync_xid xid8 NOT NULL DEFAULT pg_current_xact_id(),
  sync_seq bigint NOT NULL DEFAULT nextval('sync_seq'),
  UNIQUE (object_id, hour)
);
CREATE INDEX IF NOT EXISTS gps_track_hours_sync_idx ON gps_track_hours (organization_id, sync_xid, sync_seq);
CREATE INDEX IF NOT EXISTS gps_track_hours_changed_idx ON gps_track_hours (id) WHERE changed;
CREATE INDEX IF NOT EXISTS gps_track_hours_hour_idx ON gps_track_hours (hour);

-- Stamped when the task takes the mark off (the hour's points changed since it was last sent).
DROP TRIGGER IF EXISTS sync_stamp ON gps_track_hours;
CREATE TRIGGER sync_stamp BEFORE UPDATE ON gps_track_hours
  FOR EACH ROW WHEN (OLD.changed AND NOT NEW.changed) EXECUTE FUNCTION sync_stamp();

DROP TRIGGER IF EXISTS sync_tombstone ON gps_track_hours;
CREATE TRIGGER sync_tombstone AFTER DELETE ON gps_track_hours
  FOR EACH ROW EXECUTE FUNCTION sync_gps_tombstone('gps_tracks');

-- The id of an object's hour (UTC), the same wherever computed.
CREATE OR REPLACE FUNCTION gps_track_hour_id(object_id uuid, hour timestamptz) RETURNS uuid
  LANGUAGE sql IMMUTABLE AS $$ SELECT md5(object_id::text || to_char(hour AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24'))::uuid $$;

-- Points accepted, refused on second thought or pruned: their hours are marked, once per
-- statement, within the longest window replicas may keep (a week).
CREATE OR REPLACE FUNCTION gps_track_hours_mark() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO gps_track_hours (id, organization_id, object_id, hour)
  SELECT DISTINCT gps_track_hour_id(p.object_id, date_trunc('hour', p.fix_time, 'UTC')), p.organization_id, p.object_id,
         date_trunc('hour', p.fix_time, 'UTC')
    FROM changed_points p
    -- Points deleted with their object mark nothing.
    JOIN gps_objects o ON o.id = p.object_id
   WHERE p.fix_time > now() - interval '169 hours'
  ON CONFLICT (id) DO UPDATE SET changed = true WHERE NOT gps_track_hours.changed;
  RETURN NULL;
END $$;
DROP TRIGGER IF EXISTS gps_track_hours_added ON gps_points;
CREATE TRIGGER gps_track_hours_added AFTER INSERT ON gps_points REFERENCING NEW TABLE AS changed_points
  FOR EACH STATEMENT EXECUTE FUNCTION gps_track_hours_mark();
DROP TRIGGER IF EXISTS gps_track_hours_removed ON gps_points;
CREATE TRIGGER gps_track_hours_removed AFTER DELETE ON gps_points REFERENCING OLD TABLE AS changed_points
  FOR EACH STATEMENT EXECUTE FUNCTION gps_track_hours_mark();

-- The last day's hours of the points already stored.
INSERT INTO gps_track_hours (id, organization_id, object_id, hour, changed)
SELECT DISTINCT gps_track_hour_id(p.object_id, date_trunc('hour', p.fix_time, 'UTC')), p.organization_id, p.object_id,
       date_trunc('hour', p.fix_time, 'UTC'), false
  FROM gps_points p WHERE p.fix_time > now() - interval '25 hours'
ON CONFLICT (id) DO NOTHING;
