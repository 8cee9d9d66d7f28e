import { TILE_ANSWER, type TileAnswer, type TileRequest } from '@shared/desktop/bridge';
import { fetchTile, type TileCache } from './tile-cache';

/** Whether `message` is a tile request of the main process. */
export function isTileRequest(message: unknown): message is TileRequest {
  const request = message as Partial<TileRequest> | undefined;
  return (
    request?.type === 'orbita:tile-request' &&
    typeof request.requestId === 'number' &&
    typeof request.url === 'string' &&
    (request.range === undefined || typeof request.range === 'string')
  );
}

/**
 * Answers the main process's tile request through the cache. Which origin may be asked for is the
 * main process's to check (it knows the organization's configured source); this only fetches.
 */
export async function answerTileRequest(
  cache: TileCache,
  request: TileRequest,
  fetchImpl: typeof fetch = fetch,
): Promise<TileAnswer> {
  const tile = await fetchTile(cache, request.url, fetchImpl, request.range);
  if (!tile) return { type: TILE_ANSWER, requestId: request.requestId };
  return {
    type: TILE_ANSWER,
    requestId: request.requestId,
    data: new Uint8Array(tile.data),
    contentType: tile.contentType,
  };
}
