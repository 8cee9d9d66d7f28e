import type { FeatureCollection, MultiLineString } from 'geojson';
import { feature, mesh } from 'topojson-client';
import countries from 'world-atlas/countries-110m.json';

/**
 * The low-zoom basemap shipped with the app: Natural Earth's countries at 1:110m (world-atlas),
 * bundled into the build, so a map renders land and borders with no network and no tile source.
 */
export function basemap(): { land: FeatureCollection; borders: MultiLineString } {
  const topology = countries as unknown as { objects: { countries: unknown; land: unknown } };
  const land = feature(topology, topology.objects.land);
  return {
    land: land.type === 'FeatureCollection' ? land : { type: 'FeatureCollection', features: [land] },
    borders: mesh(topology, topology.objects.countries),
  };
}
