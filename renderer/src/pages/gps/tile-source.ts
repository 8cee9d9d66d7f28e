import type {
  AddLayerObject,
  LayerSpecification,
  RequestParameters,
  SourceSpecification,
  StyleSpecification,
} from 'maplibre-gl';
import { addProtocol } from 'maplibre-gl';
import { PMTiles, Protocol, TileType } from 'pmtiles';
import { desktopBridge } from '../../desktop';

/** The map's tile source: an XYZ raster URL, a MapLibre style URL (vector tiles), or a PMTiles archive (raster or vector). */
export interface TileSource {
  kind: 'raster' | 'style' | 'pmtiles';
  url: string;
}

/** What the organization's tile source adds to the map, under the app's own layers. */
export interface OrganizationLayers {
  sources: Record<string, SourceSpecification>;
  layers: AddLayerObject[];
  /** The style's glyphs and sprite (a style URL source), when it names them. */
  glyphs?: string;
  sprite?: string;
}

/** Ids of the sources and layers of the organization's tiles start with it, so they can be told from the app's own. */
export const ORGANIZATION_PREFIX = 'org:';

/** Where the tiles are read in the desktop app: through the shell's tile cache (`app://orbita/_tiles/<url>`). */
const DESKTOP_TILE_PATH = '/_tiles/';

let proxiedOrigin: string | undefined;
let protocol: Protocol | undefined;

/**
 * The address MapLibre (and PMTiles) should request for `url`: in the desktop app a request to the
 * configured tile origin goes through the shell, which keeps it in the backend's SQLite tile cache;
 * in a browser the request is left as it is (the service worker keeps it).
 */
export function tileRequestUrl(url: string): string {
  if (!proxiedOrigin || !url.startsWith(`${proxiedOrigin}/`)) return url;
  return `${location.origin}${DESKTOP_TILE_PATH}${url}`;
}

/** MapLibre's `transformRequest`: the configured source's requests go through {@link tileRequestUrl}. */
export function transformTileRequest(url: string): RequestParameters {
  return { url: tileRequestUrl(url) };
}

let serviceWorkerChecked = false;

/**
 * Says which origin is the organization's tile source. The desktop shell is told (its tile cache
 * serves only that origin, its pages' CSP allows it). In a browser the service worker is checked
 * for a new version once: its script names the configured tile origins it keeps, so a source set
 * since it was installed brings a new one.
 */
export function announceTileSource(tiles: TileSource | null): void {
  const bridge = desktopBridge();
  if (bridge) {
    bridge.setTileSource(tiles ? { kind: tiles.kind, url: new URL(tiles.url, location.href).href } : null);
    proxiedOrigin = tiles ? new URL(tiles.url, location.href).origin : undefined;
    return;
  }
  if (!tiles || serviceWorkerChecked || !navigator.serviceWorker) return;
  serviceWorkerChecked = true;
  void navigator.serviceWorker
    .getRegistration()
    .then((registration) => registration?.update())
    .catch(() => undefined);
}

/** An absolute URL (templates keep their `{z}`, `{fontstack}` … braces, which `URL` would escape). */
function absolute(url: string, base: string): string {
  if (/^[a-z][a-z0-9+.-]*:/i.test(url)) return url;
  return new URL(url, base).href.replaceAll('%7B', '{').replaceAll('%7D', '}');
}

function pmtilesProtocol(): Protocol {
  if (!protocol) {
    protocol = new Protocol();
    addProtocol('pmtiles', protocol.tile);
  }
  return protocol;
}

/** The archive's layer names (its metadata's `vector_layers`), for the default style. */
function vectorLayerIds(metadata: unknown): string[] {
  const layers = (metadata as { vector_layers?: { id?: unknown }[] } | null)?.vector_layers;
  if (!Array.isArray(layers)) return [];
  return layers.flatMap((layer) => (typeof layer.id === 'string' ? [layer.id] : []));
}

/**
 * The style drawn for a PMTiles archive of vector tiles (an archive carries no style): every layer
 * of the archive as areas, lines and points in quiet colours, under the objects.
 */
export function defaultVectorLayers(source: string, layerIds: readonly string[]): LayerSpecification[] {
  return layerIds.flatMap((layer): LayerSpecification[] => [
    {
      id: `${source}/${layer}/fill`,
      type: 'fill',
      source,
      'source-layer': layer,
      filter: ['==', ['geometry-type'], 'Polygon'],
      paint: { 'fill-color': '#c8d7c0', 'fill-outline-color': '#a9b8a1' },
    },
    {
      id: `${source}/${layer}/line`,
      type: 'line',
      source,
      'source-layer': layer,
      filter: ['==', ['geometry-type'], 'LineString'],
      paint: { 'line-color': '#8d8d8d', 'line-width': 1.2 },
    },
    {
      id: `${source}/${layer}/point`,
      type: 'circle',
      source,
      'source-layer': layer,
      filter: ['==', ['geometry-type'], 'Point'],
      paint: { 'circle-color': '#6d6d6d', 'circle-radius': 3 },
    },
  ]);
}

async function pmtilesLayers(url: string): Promise<OrganizationLayers> {
  const archive = new PMTiles(tileRequestUrl(url));
  pmtilesProtocol().add(archive);
  const source = `${ORGANIZATION_PREFIX}tiles`;
  const sourceUrl = `pmtiles://${archive.source.getKey()}`;
  const header = await archive.getHeader();
  if (header.tileType === TileType.Mvt) {
    const ids = vectorLayerIds(await archive.getMetadata());
    return {
      sources: { [source]: { type: 'vector', url: sourceUrl } },
      layers: defaultVectorLayers(source, ids),
    };
  }
  return {
    sources: { [source]: { type: 'raster', url: sourceUrl, tileSize: 256 } },
    layers: [{ id: source, type: 'raster', source }],
  };
}

/**
 * A MapLibre style of the organization's own, its sources and layers renamed under
 * {@link ORGANIZATION_PREFIX} and its relative URLs made absolute, to be layered with the app's.
 */
export function styleLayers(style: StyleSpecification, styleUrl: string): OrganizationLayers {
  const sources: Record<string, SourceSpecification> = {};
  for (const [name, source] of Object.entries(style.sources ?? {})) {
    const copy = { ...source } as SourceSpecification & { url?: string; tiles?: string[] };
    if (typeof copy.url === 'string') copy.url = absolute(copy.url, styleUrl);
    if (Array.isArray(copy.tiles)) copy.tiles = copy.tiles.map((tile) => absolute(tile, styleUrl));
    sources[`${ORGANIZATION_PREFIX}${name}`] = copy;
  }
  const layers = (style.layers ?? []).map((layer) => {
    const copy = { ...layer, id: `${ORGANIZATION_PREFIX}${layer.id}` } as LayerSpecification & { source?: unknown };
    if (typeof copy.source === 'string') copy.source = `${ORGANIZATION_PREFIX}${copy.source}`;
    return copy as AddLayerObject;
  });
  return {
    sources,
    layers,
    glyphs: style.glyphs ? absolute(style.glyphs, styleUrl) : undefined,
    sprite: typeof style.sprite === 'string' ? absolute(style.sprite, styleUrl) : undefined,
  };
}

/** What the configured tile source adds to the map (nothing for none). Rejects when it cannot be read. */
export async function organizationLayers(tiles: TileSource | null): Promise<OrganizationLayers> {
  if (!tiles) return { sources: {}, layers: [] };
  const url = new URL(tiles.url, location.href).href;
  const source = `${ORGANIZATION_PREFIX}tiles`;
  if (tiles.kind === 'raster') {
    return {
      sources: { [source]: { type: 'raster', tiles: [tiles.url], tileSize: 256, maxzoom: 19 } },
      layers: [{ id: source, type: 'raster', source }],
    };
  }
  if (tiles.kind === 'pmtiles') return pmtilesLayers(url);
  const response = await fetch(tileRequestUrl(url));
  if (!response.ok) throw new Error(`The tile style answered ${response.status}`);
  return styleLayers((await response.json()) as StyleSpecification, url);
}
