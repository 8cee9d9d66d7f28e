import { ALL_LAYERS_ON, type LayerSwitches, layerSwitches } from './layers';
import type { MapCamera, TileSource } from './map-view';
import type { MapObject } from './object-state';

/** What the map remembers per user on this device: where it looked and which layers were on. */
export interface MapMemory extends MapCamera {
  layers: LayerSwitches;
}

const DEFAULT: MapMemory = { center: [37.62, 55.75], zoom: 9, layers: ALL_LAYERS_ON };

export function recallMap(userId: string): MapMemory {
  try {
    const raw = localStorage.getItem(`orbita.map.${userId}`);
    if (!raw) return DEFAULT;
    const kept = JSON.parse(raw) as Partial<MapMemory>;
    return { ...DEFAULT, ...kept, layers: layerSwitches(kept.layers) };
  } catch {
    return DEFAULT;
  }
}

export function rememberMap(userId: string, memory: MapMemory): void {
  localStorage.setItem(`orbita.map.${userId}`, JSON.stringify(memory));
}

/** The objects and geofences last received, with when: the map opens offline on them. */
export interface MapData {
  at: string;
  objects: MapObject[];
  geofences: { id: string; name: string; geometry: unknown; color?: string | null }[];
  tileSource?: TileSource | null;
}

export function recallMapData(userId: string): MapData | undefined {
  try {
    const raw = localStorage.getItem(`orbita.map-data.${userId}`);
    return raw ? (JSON.parse(raw) as MapData) : undefined;
  } catch {
    return undefined;
  }
}

export function rememberMapData(userId: string, data: MapData): void {
  try {
    localStorage.setItem(`orbita.map-data.${userId}`, JSON.stringify(data));
  } catch {
    // A full storage keeps the previous copy: the map still opens on it.
  }
}
