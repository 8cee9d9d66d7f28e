-- A track is read from the primary key alone (an index-only scan in fix-time order): the drawn
-- values ride in the key's index, so one object's points need not be gathered from table pages
-- scattered by the interleaved arrival of every tracker's points.
ALTER TABLE gps_points DROP CONSTRAINT IF EXISTS gps_points_pkey;
ALTER TABLE gps_points ADD CONSTRAINT gps_points_pkey PRIMARY KEY (object_id, fix_time)
  INCLUDE (lat, lon, speed_kmh, course, altitude, accuracy, is_lbs);
