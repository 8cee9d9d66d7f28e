/** The one function of topojson-client used here (the package ships no types). */
declare module 'topojson-client' {
  import type { Feature, FeatureCollection, MultiLineString } from 'geojson';
  export function feature(topology: unknown, object: unknown): FeatureCollection | Feature;
  export function mesh(topology: unknown, object: unknown): MultiLineString;
}

/** A file's address in the build (Vite's `?url` import): MapLibre's worker is served beside the bundle. */
declare module 'maplibre-gl/dist/maplibre-gl-worker.mjs?url' {
  const url: string;
  export default url;
}
