-- GPS monitoring: objects (vehicles, people, trackers) and their groups, organization settings,
-- the per-organization ingestion token, accepted points and rejected ones with their reason.

-- Organization defaults (filters, trips, GPS loss, retention, routing engine) as one document.
CREATE TABLE IF NOT EXISTS gps_settings (
  organization_id uuid PRIMARY KEY REFERENCES organizations (id) ON DELETE CASCADE,
  settings jsonb NOT NULL DEFAULT '{}',
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- One ingestion token per organization (gps_…): only its SHA-256 hex is kept.
CREATE TABLE IF NOT EXISTS gps_ingestion_tokens (
  id uuid PRIMARY KEY,
  organization_id uuid NOT NULL UNIQUE REFERENCES organizations (id) ON DELETE CASCADE,
  token_hash text NOT NULL UNIQUE,
  prefix text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  last_used_at timestamptz
);

CREATE TABLE IF NOT EXISTS gps_groups (
  id uuid PRIMARY KEY,
  organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  name text NOT NULL,
  -- Filter and GPS-loss settings overriding the organization's for the group's objects.
  settings jsonb NOT NULL DEFAULT '{}',
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS gps_groups_organization ON gps_groups (organization_id, name);

-- An object and its last state: the last position is kept on the row, so "last position of every
-- object" reads one row per object instead of searching the points.
CREATE TABLE IF NOT EXISTS gps_objects (
  id uuid PRIMARY KEY,
  organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  name text NOT NULL,
  kind text NOT NULL CHECK (kind IN ('vehicle', 'person', 'tracker')),
  tracker_id text NOT NULL,
  group_id uuid REFERENCES gps_groups (id) ON DELETE SET NULL,
  settings jsonb NOT NULL DEFAULT '{}',
  last_seen timestamptz,
  last_gps_fix_at timestamptz,
  last_fix_time timestamptz,
  last_lat double precision,
  last_lon double precision,
  last_speed_kmh real,
  last_course real,
  last_is_lbs boolean,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (organization_id, tracker_id)
);
CREATE INDEX IF NOT EXISTS gps_objects_organization ON gps_objects (organization_id, name, id);

-- Accepted points, keyed by object and fix time (a redelivery is the same row). The primary key
-- serves a track (one object, a time range) as an index range scan; retention deletes per object.
CREATE TABLE IF NOT EXISTS gps_points (
  object_id uuid NOT NULL REFERENCES gps_objects (id) ON DELETE CASCADE,
  fix_time timestamptz NOT NULL,
  organization_id uuid NOT NULL,
  received_at timestamptz NOT NULL DEFAULT now(),
  lat double precision NOT NULL,
  lon double precision NOT NULL,
  speed_kmh real,
  course real,
  altitude real,
  accuracy real,
  is_lbs boolean NOT NULL DEFAULT false,
  PRIMARY KEY (object_id, fix_time)
);

-- Points the filters refused, with the reason, kept 7 days so a dispatcher can see why a point vanished.
CREATE TABLE IF NOT EXISTS gps_rejected_points (
  object_id uuid NOT NULL REFERENCES gps_objects (id) ON DELETE CASCADE,
  fix_time timestamptz NOT NULL,
  reason text NOT NULL,
  organization_id uuid NOT NULL,
  received_at timestamptz NOT NULL DEFAULT now(),
  lat double precision,
  lon double precision,
  speed_kmh real,
  course real,
  altitude real,
  accuracy real,
  is_lbs boolean NOT NULL DEFAULT false,
  PRIMARY KEY (object_id, fix_time, reason)
);
CREATE INDEX IF NOT EXISTS gps_rejected_points_received ON gps_rejected_points (received_at);

-- Traccar's own events (alarms, ignition, overspeed, its geofence crossings) per object.
CREATE TABLE IF NOT EXISTS gps_tracker_events (
  id uuid PRIMARY KEY,
  organization_id uuid NOT NULL,
  object_id uuid NOT NULL REFERENCES gps_objects (id) ON DELETE CASCADE,
  type text NOT NULL,
  event_time timestamptz NOT NULL,
  attributes jsonb NOT NULL DEFAULT '{}',
  -- Traccar's event id: a redelivered event is stored once.
  source_id text,
  received_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS gps_tracker_events_object ON gps_tracker_events (object_id, event_time);
CREATE UNIQUE INDEX IF NOT EXISTS gps_tracker_events_source ON gps_tracker_events (object_id, source_id)
  WHERE source_id IS NOT NULL;
