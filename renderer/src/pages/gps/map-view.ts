import type { ExpressionSpecification } from '@maplibre/maplibre-gl-style-spec';
import type { FeatureCollection, Point } from 'geojson';
import {
  type GeoJSONSource,
  type MapLayerMouseEvent,
  Map as MapLibreMap,
  type MapStyleImageMissingEvent,
  NavigationControl,
  ScaleControl,
  type StyleSpecification,
  setWorkerUrl,
} from 'maplibre-gl';
import 'maplibre-gl/dist/maplibre-gl.css';
import workerUrl from 'maplibre-gl/dist/maplibre-gl-worker.mjs?url';
import { basemap } from './basemap';
import type { LatLon } from './geometry';
import { type LayerSwitches, layerGroupOf } from './layers';
import { STATE_COLOR } from './object-state';
import {
  announceTileSource,
  ORGANIZATION_PREFIX,
  organizationLayers,
  type TileSource,
  transformTileRequest,
} from './tile-source';

export type { TileSource } from './tile-source';

export interface MapCamera {
  center: [number, number];
  zoom: number;
}

const EMPTY: FeatureCollection = { type: 'FeatureCollection', features: [] };
const GEOJSON_SOURCES = ['objects', 'track', 'stops', 'rejected', 'playback', 'geofences', 'draft', 'handles'] as const;
export type MapSourceName = (typeof GEOJSON_SOURCES)[number];

// MapLibre finds its worker beside its own module, which the bundle does not keep: named here.
setWorkerUrl(new URL(workerUrl, location.href).href);

function styleOf(): StyleSpecification {
  const { land, borders } = basemap();
  const style: StyleSpecification = {
    version: 8,
    sources: {
      land: { type: 'geojson', data: land },
      borders: { type: 'geojson', data: { type: 'Feature', geometry: borders, properties: {} } },
    },
    layers: [
      { id: 'sea', type: 'background', paint: { 'background-color': '#cfe3f3' } },
      { id: 'land', type: 'fill', source: 'land', paint: { 'fill-color': '#f2efe9' } },
      { id: 'borders', type: 'line', source: 'borders', paint: { 'line-color': '#b9a8b9', 'line-width': 0.8 } },
    ],
  };
  return style;
}

/** Draws an image the style asks for by name (objects' icons, labels, cluster counts): no glyph server needed. */
function drawImage(name: string): ImageData | undefined {
  const ratio = 2;
  const [kind, ...rest] = name.split(':');
  const text = rest.join(':');
  const canvas = document.createElement('canvas');
  const context = canvas.getContext('2d');
  if (!context) return undefined;
  if (kind === 'object') {
    const [objectKind, state] = rest as [string, keyof typeof STATE_COLOR];
    const size = 28 * ratio;
    canvas.width = size;
    canvas.height = size;
    const middle = size / 2;
    context.fillStyle = STATE_COLOR[state] ?? '#9e9e9e';
    context.strokeStyle = '#fff';
    context.lineWidth = 2 * ratio;
    // The heading arrow's tip points up; the layer rotates it by the course.
    context.beginPath();
    context.moveTo(middle, 1 * ratio);
    context.lineTo(middle + 6 * ratio, 8 * ratio);
    context.lineTo(middle - 6 * ratio, 8 * ratio);
    context.closePath();
    context.fill();
    context.beginPath();
    if (objectKind === 'person') context.arc(middle, middle + 2 * ratio, 8 * ratio, 0, 2 * Math.PI);
    else if (objectKind === 'vehicle') context.rect(middle - 8 * ratio, middle - 6 * ratio, 16 * ratio, 16 * ratio);
    else context.arc(middle, middle + 2 * ratio, 7 * ratio, 0, 2 * Math.PI);
    context.fill();
    context.stroke();
    return context.getImageData(0, 0, size, size);
  }
  const font = `${12 * ratio}px system-ui, sans-serif`;
  context.font = font;
  const width = Math.ceil(context.measureText(text).width) + 8 * ratio;
  const height = 18 * ratio;
  canvas.width = width;
  canvas.height = kind === 'count' ? Math.max(width, height) : height;
  context.font = font;
  context.textBaseline = 'middle';
  context.textAlign = 'center';
  if (kind === 'count') {
    context.fillStyle = '#fff';
  } else {
    context.fillStyle = 'rgba(255,255,255,0.85)';
    context.fillRect(0, 0, width, height);
    context.fillStyle = '#222';
  }
  context.fillText(text, width / 2, canvas.height / 2);
  return context.getImageData(0, 0, canvas.width, canvas.height);
}

/**
 * The map of the GPS screen on MapLibre: the bundled basemap with the configured tiles over it,
 * then geofences, the track and the objects. Every layer reads a GeoJSON source made once and
 * updated in place (`setData`), so 2,000 objects moving each second do not rebuild anything.
 */
export class MapView {
  readonly map: MapLibreMap;
  readonly loaded: Promise<void>;
  private tilesKey: string | undefined;

  constructor(container: HTMLElement, camera: MapCamera, tiles: TileSource | null | undefined) {
    this.map = new MapLibreMap({
      container,
      style: styleOf(),
      // The organization's tiles go through the desktop shell's tile cache (left as they are in a browser).
      transformRequest: transformTileRequest,
      center: camera.center,
      zoom: camera.zoom,
      attributionControl: false,
      // Screenshots and tests read the canvas.
      canvasContextAttributes: { preserveDrawingBuffer: true },
    });
    this.map.addControl(new NavigationControl({ showCompass: true }), 'top-right');
    this.map.addControl(new ScaleControl({}), 'bottom-left');
    this.map.on('styleimagemissing', ({ id }: MapStyleImageMissingEvent) => {
      const image = drawImage(id);
      if (image && !this.map.hasImage(id)) this.map.addImage(id, image, { pixelRatio: 2 });
    });
    this.loaded = new Promise((resolve) => this.map.once('load', () => resolve()));
    void this.loaded.then(() => this.addLayers());
    this.setTiles(tiles ?? null);
  }

  private addLayers() {
    const map = this.map;
    for (const name of GEOJSON_SOURCES) {
      map.addSource(
        name,
        name === 'objects'
          ? { type: 'geojson', data: EMPTY, cluster: true, clusterRadius: 40, clusterMaxZoom: 11 }
          : { type: 'geojson', data: EMPTY },
      );
    }
    const isLine: ExpressionSpecification = ['==', ['geometry-type'], 'LineString'];
    map.addLayer({
      id: 'geofences-fill',
      type: 'fill',
      source: 'geofences',
      filter: ['!', isLine],
      paint: { 'fill-color': ['coalesce', ['get', 'color'], '#7b1fa2'], 'fill-opacity': 0.15 },
    });
    map.addLayer({
      id: 'geofences-corridor',
      type: 'line',
      source: 'geofences',
      filter: isLine,
      layout: { 'line-cap': 'round', 'line-join': 'round' },
      paint: {
        'line-color': ['coalesce', ['get', 'color'], '#7b1fa2'],
        'line-opacity': 0.25,
        'line-width': [
          'interpolate',
          ['exponential', 2],
          ['zoom'],
          0,
          ['get', 'widthAtZoom0'],
          22,
          ['*', ['get', 'widthAtZoom0'], 4_194_304],
        ],
      },
    });
    map.addLayer({
      id: 'geofences-line',
      type: 'line',
      source: 'geofences',
      paint: { 'line-color': ['coalesce', ['get', 'color'], '#7b1fa2'], 'line-width': 2 },
    });
    map.addLayer({
      id: 'track',
      type: 'line',
      source: 'track',
      layout: { 'line-cap': 'round', 'line-join': 'round' },
      paint: { 'line-color': ['get', 'color'], 'line-width': 4 },
    });
    map.addLayer({
      id: 'stops',
      type: 'circle',
      source: 'stops',
      paint: { 'circle-radius': 7, 'circle-color': '#fff', 'circle-stroke-color': '#1565c0', 'circle-stroke-width': 3 },
    });
    map.addLayer({
      id: 'rejected',
      type: 'circle',
      source: 'rejected',
      paint: { 'circle-radius': 5, 'circle-color': '#c62828', 'circle-stroke-color': '#fff', 'circle-stroke-width': 1 },
    });
    map.addLayer({
      id: 'playback',
      type: 'circle',
      source: 'playback',
      paint: { 'circle-radius': 8, 'circle-color': '#000', 'circle-stroke-color': '#fff', 'circle-stroke-width': 3 },
    });
    map.addLayer({
      id: 'clusters',
      type: 'circle',
      source: 'objects',
      filter: ['has', 'point_count'],
      paint: {
        'circle-color': '#37474f',
        'circle-radius': ['step', ['get', 'point_count'], 14, 50, 18, 500, 24],
        'circle-stroke-color': '#fff',
        'circle-stroke-width': 2,
      },
    });
    map.addLayer({
      id: 'cluster-count',
      type: 'symbol',
      source: 'objects',
      filter: ['has', 'point_count'],
      layout: {
        'icon-image': ['concat', 'count:', ['get', 'point_count_abbreviated']],
        'icon-allow-overlap': true,
      },
    });
    map.addLayer({
      id: 'selected',
      type: 'circle',
      source: 'objects',
      filter: ['all', ['!', ['has', 'point_count']], ['==', ['get', 'selected'], true]],
      paint: {
        'circle-radius': 20,
        'circle-color': 'rgba(255,193,7,0.35)',
        'circle-stroke-color': '#ffa000',
        'circle-stroke-width': 2,
      },
    });
    map.addLayer({
      id: 'objects',
      type: 'symbol',
      source: 'objects',
      filter: ['!', ['has', 'point_count']],
      layout: {
        'icon-image': ['get', 'icon'],
        'icon-rotate': ['case', ['get', 'hasCourse'], ['get', 'course'], 0],
        'icon-rotation-alignment': 'map',
        'icon-allow-overlap': true,
        'icon-ignore-placement': true,
      },
    });
    map.addLayer({
      id: 'labels',
      type: 'symbol',
      source: 'objects',
      filter: ['!', ['has', 'point_count']],
      layout: { 'icon-image': ['get', 'label'], 'icon-anchor': 'top', 'icon-offset': [0, 14] },
    });
    map.addLayer({
      id: 'draft-fill',
      type: 'fill',
      source: 'draft',
      filter: ['!', isLine],
      paint: { 'fill-color': '#ff6f00', 'fill-opacity': 0.2 },
    });
    map.addLayer({
      id: 'draft-line',
      type: 'line',
      source: 'draft',
      paint: { 'line-color': '#ff6f00', 'line-width': 2, 'line-dasharray': [2, 1] },
    });
    map.addLayer({
      id: 'handles',
      type: 'circle',
      source: 'handles',
      paint: { 'circle-radius': 6, 'circle-color': '#fff', 'circle-stroke-color': '#ff6f00', 'circle-stroke-width': 2 },
    });
    map.on('click', 'clusters', (event: MapLayerMouseEvent) => {
      const feature = event.features?.[0];
      const source = map.getSource('objects') as GeoJSONSource;
      if (feature?.geometry.type !== 'Point') return;
      void source
        .getClusterExpansionZoom(feature.properties.cluster_id as number)
        .then((zoom) => map.easeTo({ center: (feature.geometry as Point).coordinates as [number, number], zoom }));
    });
  }

  /** Replaces a source's features in place (after the map has loaded). */
  set(source: MapSourceName, data: FeatureCollection) {
    void this.loaded.then(() => (this.map.getSource(source) as GeoJSONSource | undefined)?.setData(data));
  }

  /**
   * Shows the organization's tiles (raster, a style's vector layers or a PMTiles archive) over the
   * bundled basemap, under everything else (null: none). The same source again changes nothing.
   */
  setTiles(tiles: TileSource | null) {
    const key = JSON.stringify(tiles);
    if (key === this.tilesKey) return;
    this.tilesKey = key;
    announceTileSource(tiles);
    const layers = organizationLayers(tiles);
    void Promise.all([this.loaded, layers])
      .then(([, organization]) => {
        const map = this.map;
        if (this.tilesKey !== key) return;
        for (const layer of map.getStyle().layers) {
          if (layer.id.startsWith(ORGANIZATION_PREFIX)) map.removeLayer(layer.id);
        }
        for (const name of Object.keys(map.getStyle().sources)) {
          if (name.startsWith(ORGANIZATION_PREFIX)) map.removeSource(name);
        }
        if (organization.glyphs) map.setGlyphs(organization.glyphs);
        if (organization.sprite) map.setSprite(organization.sprite);
        for (const [name, source] of Object.entries(organization.sources)) map.addSource(name, source);
        for (const layer of organization.layers) map.addLayer(layer, 'geofences-fill');
      })
      // The source cannot be read (offline with nothing kept, a broken style): the basemap stays.
      .catch(() => {
        if (this.tilesKey === key) this.tilesKey = undefined;
      });
  }

  /** Calls back with the id of an object clicked on the map. */
  onObjectClick(handler: (objectId: string) => void) {
    void this.loaded.then(() =>
      this.map.on('click', 'objects', (event: MapLayerMouseEvent) => {
        const id = event.features?.[0]?.properties.id;
        if (typeof id === 'string') handler(id);
      }),
    );
  }

  camera(): MapCamera {
    const center = this.map.getCenter();
    return { center: [center.lng, center.lat], zoom: this.map.getZoom() };
  }

  fit(bounds: [[number, number], [number, number]]) {
    this.map.fitBounds(bounds, { padding: 60, maxZoom: 16, duration: 300 });
  }

  follow(point: LatLon) {
    this.map.easeTo({ center: [point.lon, point.lat], duration: 300 });
  }

  private switches: LayerSwitches | undefined;

  /** Shows or hides the layer switch's groups (the organization's tiles too, whenever they are added). */
  setLayers(switches: LayerSwitches) {
    if (!this.switches) this.map.on('styledata', () => this.applyLayers());
    this.switches = switches;
    void this.loaded.then(() => this.applyLayers());
  }

  private applyLayers() {
    const map = this.map;
    if (!this.switches || !map.getLayer('geofences-fill')) return;
    let beforeGeofences = true;
    for (const layer of map.getStyle().layers) {
      if (layer.id === 'geofences-fill') beforeGeofences = false;
      const group = layerGroupOf(layer.id, beforeGeofences);
      if (!group) continue;
      const visibility = this.switches[group] ? 'visible' : 'none';
      // Set only when it differs: setting fires styledata again.
      if ((map.getLayoutProperty(layer.id, 'visibility') ?? 'visible') !== visibility) {
        map.setLayoutProperty(layer.id, 'visibility', visibility);
      }
    }
  }

  remove() {
    this.map.remove();
  }
}
