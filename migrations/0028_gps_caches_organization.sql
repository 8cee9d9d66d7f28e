-- Every table names its organization: the geofence sides and the road-matching cache too.
ALTER TABLE gps_geofence_states ADD COLUMN IF NOT EXISTS organization_id uuid;
UPDATE gps_geofence_states s SET organization_id = o.organization_id FROM gps_objects o
 WHERE o.id = s.object_id AND s.organization_id IS NULL;
ALTER TABLE gps_geofence_states ALTER COLUMN organization_id SET NOT NULL;

ALTER TABLE gps_matched_segments ADD COLUMN IF NOT EXISTS organization_id uuid;
UPDATE gps_matched_segments m SET organization_id = o.organization_id FROM gps_objects o
 WHERE o.id = m.object_id AND m.organization_id IS NULL;
ALTER TABLE gps_matched_segments ALTER COLUMN organization_id SET NOT NULL;
