import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PNG } from 'pngjs';

/**
 * Map tiles written by the tests themselves: a solid PNG, a Mapbox Vector Tile with one polygon,
 * PMTiles v3 archives of them, and a local tile server answering byte ranges (as PMTiles readers ask).
 */

/** A 256×256 PNG of one colour. */
export function solidPng([red, green, blue]: readonly [number, number, number]): Buffer {
  const png = new PNG({ width: 256, height: 256 });
  for (let i = 0; i < png.data.length; i += 4) {
    png.data[i] = red;
    png.data[i + 1] = green;
    png.data[i + 2] = blue;
    png.data[i + 3] = 255;
  }
  return PNG.sync.write(png);
}

function varint(value: number): number[] {
  const bytes: number[] = [];
  let rest = value;
  while (rest >= 0x80) {
    bytes.push((rest % 0x80) | 0x80);
    rest = Math.floor(rest / 0x80);
  }
  bytes.push(rest);
  return bytes;
}
const zigzag = (n: number) => (n << 1) ^ (n >> 31);
const field = (number: number, wireType: number) => varint((number << 3) | wireType);
const bytesField = (number: number, bytes: number[]) => [...field(number, 2), ...varint(bytes.length), ...bytes];
const varintField = (number: number, value: number) => [...field(number, 0), ...varint(value)];

/** A vector tile (MVT 2) whose layer `layer` holds one polygon covering the whole tile. */
export function squareVectorTile(layer: string): Buffer {
  const extent = 4096;
  const geometry = [
    9, // MoveTo ×1
    zigzag(0),
    zigzag(0),
    26, // LineTo ×3
    zigzag(extent),
    zigzag(0),
    zigzag(0),
    zigzag(extent),
    zigzag(-extent),
    zigzag(0),
    15, // ClosePath
  ].flatMap(varint);
  const feature = [...varintField(1, 1), ...varintField(3, 3), ...bytesField(4, geometry)];
  const layerBytes = [
    ...varintField(15, 2),
    ...bytesField(1, [...Buffer.from(layer)]),
    ...bytesField(2, feature),
    ...varintField(5, extent),
  ];
  return Buffer.from(bytesField(3, layerBytes));
}

/** PMTiles tile types (header byte 99). */
export const PMTILES_TYPE = { mvt: 1, png: 2 } as const;

/**
 * A PMTiles v3 archive (uncompressed directory and metadata) holding `tile` as every tile of zoom
 * 0 to `maxZoom`: one directory entry whose run covers them all.
 */
export function pmtilesArchive(options: {
  tile: Buffer;
  tileType: number;
  maxZoom: number;
  metadata?: unknown;
}): Buffer {
  const tileCount = (4 ** (options.maxZoom + 1) - 1) / 3;
  // Directory: one entry (tile id 0, run length covering every tile, its length, offset 0 written as 0+1).
  const directory = Buffer.from([
    ...varint(1),
    ...varint(0),
    ...varint(tileCount),
    ...varint(options.tile.length),
    ...varint(1),
  ]);
  const metadata = Buffer.from(JSON.stringify(options.metadata ?? {}));
  const header = Buffer.alloc(127);
  header.write('PMTiles', 0, 'ascii');
  header.writeUInt8(3, 7);
  const rootOffset = 127;
  const metadataOffset = rootOffset + directory.length;
  const dataOffset = metadataOffset + metadata.length;
  const u64 = (offset: number, value: number) => header.writeBigUInt64LE(BigInt(value), offset);
  u64(8, rootOffset);
  u64(16, directory.length);
  u64(24, metadataOffset);
  u64(32, metadata.length);
  u64(40, dataOffset + options.tile.length); // no leaf directories
  u64(48, 0);
  u64(56, dataOffset);
  u64(64, options.tile.length);
  u64(72, tileCount); // addressed tiles
  u64(80, 1); // tile entries
  u64(88, 1); // tile contents
  header.writeUInt8(1, 96); // clustered
  header.writeUInt8(1, 97); // internal compression: none
  header.writeUInt8(1, 98); // tile compression: none
  header.writeUInt8(options.tileType, 99);
  header.writeUInt8(0, 100);
  header.writeUInt8(options.maxZoom, 101);
  header.writeInt32LE(-180e7, 102);
  header.writeInt32LE(-85e7, 106);
  header.writeInt32LE(180e7, 110);
  header.writeInt32LE(85e7, 114);
  header.writeUInt8(0, 118);
  header.writeInt32LE(0, 119);
  header.writeInt32LE(0, 123);
  return Buffer.concat([header, directory, metadata, options.tile]);
}

/** A local tile server: fixed files by path (answering `Range`), with CORS for the app's pages. */
export interface TileServer {
  origin: string;
  /** Paths asked for, with their Range header. */
  requests: string[];
  stop(): Promise<void>;
}

export async function startTileServer(
  files: Record<string, { body: Buffer; type: string }>,
  /** Each answer waits this long (a download long enough to be cancelled). */
  delayMs = 0,
): Promise<TileServer> {
  const requests: string[] = [];
  const server: Server = createServer(async (request, response) => {
    if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
    const path = (request.url ?? '/').split('?')[0] ?? '/';
    requests.push(`${path} ${request.headers.range ?? ''}`.trim());
    response.setHeader('Access-Control-Allow-Origin', '*');
    response.setHeader('Access-Control-Allow-Headers', 'Range');
    response.setHeader('Access-Control-Expose-Headers', 'Content-Range, Content-Length, ETag');
    if (request.method === 'OPTIONS') return void response.writeHead(204).end();
    const file = files[path] ?? files[path.replace(/\/\d+\/\d+\/\d+\.(pbf|png)$/, '/{z}/{x}/{y}.$1')];
    if (!file) return void response.writeHead(404).end();
    const headers = { 'Content-Type': file.type, ETag: '"fixture-1"', 'Accept-Ranges': 'bytes' };
    const range = /^bytes=(\d+)-(\d*)$/.exec(request.headers.range ?? '');
    if (!range) return void response.writeHead(200, headers).end(file.body);
    const start = Number(range[1]);
    const end = Math.min(range[2] ? Number(range[2]) : file.body.length - 1, file.body.length - 1);
    response.writeHead(206, { ...headers, 'Content-Range': `bytes ${start}-${end}/${file.body.length}` });
    response.end(file.body.subarray(start, end + 1));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    requests,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
