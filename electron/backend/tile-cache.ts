import Database from 'better-sqlite3';

/** A tile as the map asks for it: its address (the key) and, once fetched, its bytes and type. */
export interface CachedTile {
  data: Buffer;
  contentType: string;
}

/**
 * Map tiles the user has viewed, kept in the desktop backend's SQLite file, bounded in bytes and
 * evicting the least recently used first: the map keeps showing the places it showed once the
 * network is gone.
 */
export class TileCache {
  private readonly db: Database.Database;
  private clock: number;

  constructor(
    file: string,
    /** Largest total of tile bytes kept. */
    readonly maxBytes: number,
  ) {
    this.db = new Database(file);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = NORMAL');
    this.db.exec(`CREATE TABLE IF NOT EXISTS tiles (
      url TEXT PRIMARY KEY,
      data BLOB NOT NULL,
      content_type TEXT NOT NULL,
      size INTEGER NOT NULL,
      used INTEGER NOT NULL
    ) STRICT;
    CREATE INDEX IF NOT EXISTS tiles_used ON tiles (used);`);
    // A counter rather than the clock: two uses within a millisecond keep their order.
    this.clock = (this.db.prepare('SELECT max(used) AS used FROM tiles').get() as { used: number | null }).used ?? 0;
  }

  /** The tile kept for `url`, marked as just used; undefined when not kept. */
  get(url: string): CachedTile | undefined {
    const row = this.db.prepare('SELECT data, content_type FROM tiles WHERE url = ?').get(url) as
      | { data: Buffer; content_type: string }
      | undefined;
    if (!row) return undefined;
    this.db.prepare('UPDATE tiles SET used = ? WHERE url = ?').run(++this.clock, url);
    return { data: row.data, contentType: row.content_type };
  }

  /** Keeps a tile, then evicts the least recently used ones until the total fits. */
  put(url: string, tile: CachedTile): void {
    if (tile.data.byteLength > this.maxBytes) return;
    this.db.transaction(() => {
      this.db
        .prepare('INSERT OR REPLACE INTO tiles (url, data, content_type, size, used) VALUES (?, ?, ?, ?, ?)')
        .run(url, tile.data, tile.contentType, tile.data.byteLength, ++this.clock);
      let total = this.totalBytes();
      const oldest = this.db.prepare('SELECT url, size FROM tiles ORDER BY used LIMIT 64');
      const remove = this.db.prepare('DELETE FROM tiles WHERE url = ?');
      while (total > this.maxBytes) {
        for (const row of oldest.all() as { url: string; size: number }[]) {
          if (total <= this.maxBytes) break;
          remove.run(row.url);
          total -= row.size;
        }
      }
    })();
  }

  totalBytes(): number {
    return (this.db.prepare('SELECT coalesce(sum(size), 0) AS total FROM tiles').get() as { total: number }).total;
  }

  count(): number {
    return (this.db.prepare('SELECT count(*) AS count FROM tiles').get() as { count: number }).count;
  }

  close(): void {
    this.db.close();
  }
}

/** The key a tile is kept under: its URL, and for a byte range (a PMTiles archive's part) the range too. */
export function tileKey(url: string, range?: string): string {
  return range ? `${url} ${range}` : url;
}

/**
 * Fetches a tile through the cache: the network first (a fresh tile is kept), the kept copy when
 * the network fails or answers an error. `range` asks for a part of the file (`bytes=0-16383`),
 * kept apart from the file's other parts. Undefined: neither has it.
 */
export async function fetchTile(
  cache: TileCache,
  url: string,
  fetchImpl: typeof fetch = fetch,
  range?: string,
): Promise<CachedTile | undefined> {
  const key = tileKey(url, range);
  try {
    const response = await fetchImpl(url, {
      signal: AbortSignal.timeout(10_000),
      headers: range ? { Range: range } : undefined,
    });
    if (response.ok) {
      const tile = {
        data: Buffer.from(await response.arrayBuffer()),
        contentType: response.headers.get('content-type') ?? 'application/octet-stream',
      };
      cache.put(key, tile);
      return tile;
    }
  } catch {
    // Offline or the server is gone: the kept copy below.
  }
  return cache.get(key);
}

/** One tile of an area pre-download: zoom, column and row. */
export interface TileAddress {
  z: number;
  x: number;
  y: number;
}

/** The XYZ tiles covering a bounding box over a zoom range (Web Mercator), lowest zoom first. */
export function tilesOf(
  bounds: { west: number; south: number; east: number; north: number },
  minZoom: number,
  maxZoom: number,
): TileAddress[] {
  const tiles: TileAddress[] = [];
  const column = (lon: number, z: number) => Math.floor(((lon + 180) / 360) * 2 ** z);
  const row = (lat: number, z: number) => {
    const radians = (Math.max(-85.0511, Math.min(85.0511, lat)) * Math.PI) / 180;
    return Math.floor(((1 - Math.log(Math.tan(radians) + 1 / Math.cos(radians)) / Math.PI) / 2) * 2 ** z);
  };
  for (let z = minZoom; z <= maxZoom; z++) {
    const last = 2 ** z - 1;
    for (let x = column(bounds.west, z); x <= Math.min(column(bounds.east, z), last); x++) {
      for (let y = row(bounds.north, z); y <= Math.min(row(bounds.south, z), last); y++) tiles.push({ z, x, y });
    }
  }
  return tiles;
}

/**
 * Downloads an area's tiles into the cache from the organization's own source (`template` with
 * {z}/{x}/{y}), reporting progress; `signal` cancels between tiles. Returns how many were kept.
 */
export async function preloadArea(
  cache: TileCache,
  template: string,
  tiles: readonly TileAddress[],
  options: { signal?: AbortSignal; onProgress?: (done: number, total: number, bytes: number) => void } = {},
): Promise<number> {
  let kept = 0;
  let bytes = 0;
  for (const [index, tile] of tiles.entries()) {
    if (options.signal?.aborted) break;
    const url = template.replace('{z}', String(tile.z)).replace('{x}', String(tile.x)).replace('{y}', String(tile.y));
    const fetched = await fetchTile(cache, url);
    if (fetched) {
      kept++;
      bytes += fetched.data.byteLength;
    }
    options.onProgress?.(index + 1, tiles.length, bytes);
  }
  return kept;
}
