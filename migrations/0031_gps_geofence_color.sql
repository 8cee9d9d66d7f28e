-- A geofence's colour on the map ('#rrggbb'; null: the map's default), and the battery level the
-- object's tracker last reported (percent; null: it reports none).
ALTER TABLE gps_geofences ADD COLUMN IF NOT EXISTS color text;
ALTER TABLE gps_objects ADD COLUMN IF NOT EXISTS last_battery_percent real;
