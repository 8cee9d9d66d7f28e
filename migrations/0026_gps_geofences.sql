-- Geofences (circle, polygon, polyline with width; geometry as JSON, judged in TypeScript), where
-- each object stands against each of them, and the crossings computed in fix-time order.
CREATE TABLE IF NOT EXISTS gps_geofences (
  id uuid PRIMARY KEY,
  organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  name text NOT NULL,
  geometry jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS gps_geofences_organization ON gps_geofences (organization_id, name);

-- Inside or not as of the newest point judged: an older point arriving late changes nothing.
CREATE TABLE IF NOT EXISTS gps_geofence_states (
  object_id uuid NOT NULL REFERENCES gps_objects (id) ON DELETE CASCADE,
  geofence_id uuid NOT NULL REFERENCES gps_geofences (id) ON DELETE CASCADE,
  inside boolean NOT NULL,
  fix_time timestamptz NOT NULL,
  PRIMARY KEY (object_id, geofence_id)
);

CREATE TABLE IF NOT EXISTS gps_geofence_events (
  id uuid PRIMARY KEY,
  organization_id uuid NOT NULL,
  object_id uuid NOT NULL REFERENCES gps_objects (id) ON DELETE CASCADE,
  geofence_id uuid NOT NULL REFERENCES gps_geofences (id) ON DELETE CASCADE,
  type text NOT NULL CHECK (type IN ('enter', 'exit')),
  fix_time timestamptz NOT NULL,
  lat double precision NOT NULL,
  lon double precision NOT NULL
);
CREATE INDEX IF NOT EXISTS gps_geofence_events_object ON gps_geofence_events (object_id, fix_time);

-- Routes: planned sequences of geofences with expected times, driven by some objects.
CREATE TABLE IF NOT EXISTS gps_routes (
  id uuid PRIMARY KEY,
  organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  name text NOT NULL,
  object_ids jsonb NOT NULL DEFAULT '[]',
  stops jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS gps_routes_organization ON gps_routes (organization_id, name);

-- Road matching answers, per track segment (object, first and last fix, point count, engine).
CREATE TABLE IF NOT EXISTS gps_matched_segments (
  object_id uuid NOT NULL REFERENCES gps_objects (id) ON DELETE CASCADE,
  cache_key text NOT NULL,
  result jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (object_id, cache_key)
);
