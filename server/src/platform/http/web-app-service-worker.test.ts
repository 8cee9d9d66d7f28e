import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { webApp } from './web-app';

let directory: string;
let server: Server;
let origins: string[] = [];
let base: string;
beforeAll(async () => {
  directory = mkdtempSync(path.join(tmpdir(), 'orbita-web-sw-'));
  writeFileSync(path.join(directory, 'sw.js'), "const SHELL = 'x';\nconst TILE_ORIGINS = [];\n");
  writeFileSync(path.join(directory, 'index.html'), '<div id="root"></div>');
  const app = express();
  app.use(webApp(directory, { offlineOrigins: () => origins }));
  server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server?.close();
  rmSync(directory, { recursive: true, force: true });
});

describe('the service worker script', () => {
  it('names the configured tile origins it keeps, so a newly configured one changes its bytes', async () => {
    const before = await fetch(`${base}/sw.js`);
    expect(before.headers.get('content-type')).toMatch(/^text\/javascript/);
    expect(before.headers.get('cache-control')).toBe('no-cache');
    expect(await before.text()).toContain('const TILE_ORIGINS = [];');
    origins = ['https://tiles.example.org', 'http://10.0.0.7:8080'];
    const after = await (await fetch(`${base}/sw.js`)).text();
    expect(after).toContain('const TILE_ORIGINS = ["https://tiles.example.org","http://10.0.0.7:8080"];');
    expect(after).toContain("const SHELL = 'x';");
  });
});
