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
 *
 * The bytes and the use order live in two tables: marking a tile used, and choosing what to evict,
 * then touch only small rows, never the tiles' blobs (read past in SQLite's overflow pages).
 */
export class TileCache {
  private readonly db: Database.Database;
  private clock: number;
  private total: number;

  constructor(
    file: string,
    /** Largest total of tile bytes kept. */
    readonly maxBytes: number,
  ) {
    this.db = new Database(file);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = NORMAL');
    this.db.exec(`DROP TABLE IF EXISTS tiles;
    CREATE TABLE IF NOT EXISTS tile_data (
      url TEXT PRIMARY KEY,
      content_type TEXT NOT NULL,
      data BLOB NOT NULL
    ) STRICT;
    CREATE TABLE IF NOT EXISTS tile_use (
      url TEXT PRIMARY KEY,
      size INTEGER NOT NULL,
      used INTEGER NOT NULL
    ) STRICT;
    CREATE INDEX IF NOT EXISTS tile_use_used ON tile_use (used);`);
    const kept = this.db.prepare('SELECT max(used) AS used, coalesce(sum(size), 0) AS total FROM tile_use').get() as {
      used: number | null;
      total: number;
    };
    // A counter rather than the clock: two uses within a millisecond keep their order.
    this.clock = kept.used ?? 0;
    this.total = kept.total;
  }

  /** The tile kept for `url`, marked as just used; undefined when not kept. */
  get(url: string): CachedTile | undefined {
    const row = this.db.prepare('SELECT data, content_type FROM tile_data WHERE url = ?').get(url) as
      | { data: Buffer; content_type: string }
      | undefined;
    if (!row) return undefined;
    this.db.prepare('UPDATE tile_use SET used = ? WHERE url = ?').run(++this.clock, url);
    return { data: row.data, contentType: row.content_type };
  }

  /** Keeps a tile, then evicts the least recently used ones until the total fits. */
  put(url: string, tile: CachedTile): void {
    if (tile.data.byteLength > this.maxBytes) return;
    this.db.transaction(() => {
      const replaced = this.db.prepare('SELECT size FROM tile_use WHERE url = ?').get(url) as
        | { size: number }
        | undefined;
      this.db
        .prepare('INSERT OR REPLACE INTO tile_data (url, content_type, data) VALUES (?, ?, ?)')
        .run(url, tile.contentType, tile.data);
      this.db
        .prepare('INSERT OR REPLACE INTO tile_use (url, size, used) VALUES (?, ?, ?)')
        .run(url, tile.data.byteLength, ++this.clock);
      let total = this.total - (replaced?.size ?? 0) + tile.data.byteLength;
      const oldest = this.db.prepare('SELECT url, size FROM tile_use ORDER BY used LIMIT 64');
      const removeData = this.db.prepare('DELETE FROM tile_data WHERE url = ?');
      const removeUse = this.db.prepare('DELETE FROM tile_use WHERE url = ?');
      while (total > this.maxBytes) {
        for (const row of oldest.all() as { url: string; size: number }[]) {
          if (total <= this.maxBytes) break;
          removeData.run(row.url);
          removeUse.run(row.url);
          total -= row.size;
        }
      }
      this.total = total;
    })();
  }

  totalBytes(): number {
    return this.total;
  }

  count(): number {
    return (this.db.prepare('SELECT count(*) AS count FROM tile_use').get() as { count: number }).count;
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
