/** What the layer switch turns on and off on the map. */
export type LayerGroup = 'tiles' | 'geofences' | 'tracks' | 'objects' | 'labels';

export const LAYER_GROUPS: readonly LayerGroup[] = ['tiles', 'geofences', 'tracks', 'objects', 'labels'];

export type LayerSwitches = Record<LayerGroup, boolean>;

export const ALL_LAYERS_ON: LayerSwitches = { tiles: true, geofences: true, tracks: true, objects: true, labels: true };

/** The bundled basemap's own layers: always drawn (the switch's `tiles` is the organization's tiles over it). */
const BASEMAP = new Set(['sea', 'land', 'borders']);
const MEMBERS: Record<Exclude<LayerGroup, 'tiles'>, readonly string[]> = {
  geofences: ['geofences-fill', 'geofences-corridor', 'geofences-line'],
  tracks: ['track', 'stops', 'rejected', 'playback'],
  objects: ['clusters', 'cluster-count', 'selected', 'objects'],
  labels: ['labels'],
};

/**
 * The switch group of a map layer: one of ours by its id; any other layer under the geofences
 * (`beforeGeofences`) that is not the basemap's is the organization's tiles. The editor's own
 * layers (draft, handles) belong to none and stay visible.
 */
export function layerGroupOf(layerId: string, beforeGeofences: boolean): LayerGroup | undefined {
  for (const [group, members] of Object.entries(MEMBERS)) {
    if (members.includes(layerId)) return group as LayerGroup;
  }
  return beforeGeofences && !BASEMAP.has(layerId) ? 'tiles' : undefined;
}

/** Switches as remembered (older memory lacks some): missing ones are on. */
export function layerSwitches(remembered: Partial<LayerSwitches> | undefined): LayerSwitches {
  const switches = { ...ALL_LAYERS_ON };
  for (const group of LAYER_GROUPS) {
    const value = remembered?.[group];
    if (typeof value === 'boolean') switches[group] = value;
  }
  return switches;
}
