import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { TileCache } from './tile-cache';
import { answerTileRequest, isTileRequest } from './tile-service';

let directory: string;
let cache: TileCache | undefined;
afterEach(() => {
  cache?.close();
  rmSync(directory, { recursive: true, force: true });
});

describe('the backend answering the main process’s tile requests', () => {
  it('answers from the network, then from its cache once the tile server is stopped', async () => {
    directory = mkdtempSync(path.join(tmpdir(), 'orbita-tile-service-'));
    cache = new TileCache(path.join(directory, 'tile-cache.sqlite'), 1_000_000);
    const server = createServer((_request, response) => {
      response.writeHead(200, { 'Content-Type': 'image/png' });
      response.end(Buffer.from('png bytes'));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/3/4/2.png`;
    const request = { type: 'orbita:tile-request' as const, requestId: 7, url };
    expect(isTileRequest(request)).toBe(true);
    const online = await answerTileRequest(cache, request);
    expect(online).toMatchObject({ type: 'orbita:tile-answer', requestId: 7, contentType: 'image/png' });
    expect(Buffer.from(online.data ?? []).toString()).toBe('png bytes');
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    const offline = await answerTileRequest(cache, { ...request, requestId: 8 });
    expect(Buffer.from(offline.data ?? []).toString()).toBe('png bytes');
    expect(await answerTileRequest(cache, { ...request, requestId: 9, url: `${url}?other` })).toEqual({
      type: 'orbita:tile-answer',
      requestId: 9,
    });
  });

  it('tells tile requests from anything else', () => {
    directory = mkdtempSync(path.join(tmpdir(), 'orbita-tile-service-'));
    for (const wrong of [undefined, { type: 'orbita:tile-request', requestId: '1', url: 'x' }, { type: 'other' }]) {
      expect(isTileRequest(wrong)).toBe(false);
    }
  });
});
