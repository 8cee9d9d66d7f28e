import { MAX_TILE_DOWNLOAD, type TileArea, type TileDownloadPlan } from '@shared/api/gps';
import { isPublicTileServer, tileCount } from '@shared/gps-tiles';
import type { AuthContext } from '../../platform/auth/auth-context';
import { Problem } from '../../platform/http/problem';
import { type GpsDeps, getSettings } from './gps.service';

/**
 * An administrator's pre-download of an area's tiles (the route is for administrators only): from
 * the organization's own configured source, never from a public tile server whose policy forbids
 * bulk downloads, and no more than MAX_TILE_DOWNLOAD tiles at once. The tiles themselves are
 * fetched by the device (into its own cache), not by the server.
 */
export async function planTileDownload(deps: GpsDeps, auth: AuthContext, area: TileArea): Promise<TileDownloadPlan> {
  const { tileSource } = await getSettings(deps.db, auth.organizationId);
  if (!tileSource) {
    throw Problem.of(
      'tile_source_not_configured',
      'Areas are pre-downloaded from the organization’s own tile source: set one in the GPS settings (tileSource). The bundled basemap needs no download.',
    );
  }
  if (isPublicTileServer(tileSource.url)) {
    throw Problem.of(
      'tile_download_forbidden',
      `${new URL(tileSource.url).hostname} is a public tile server whose usage policy forbids bulk downloads: set the organization’s own tile server as the source to pre-download areas.`,
    );
  }
  const count = tileCount(area, area.minZoom, area.maxZoom);
  if (count > MAX_TILE_DOWNLOAD) {
    throw Problem.of(
      'tile_area_too_large',
      `The area has ${count} tiles over zooms ${area.minZoom}–${area.maxZoom}; at most ${MAX_TILE_DOWNLOAD} are downloaded at once: choose a smaller area or fewer zoom levels.`,
    );
  }
  return { source: tileSource, tileCount: count, maxTiles: MAX_TILE_DOWNLOAD };
}
