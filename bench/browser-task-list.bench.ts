import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { chromium } from 'playwright-core';
import { CHROMIUM } from '../test/helpers/browser';
import { report } from './lib';

const TASKS = 50_000;

/**
 * The browser build's task list (RxDB's Dexie storage on IndexedDB, in Debian's Chromium): the
 * first page of 50,000 tasks as the list reads it, against IndexedDB itself reading the 50 newest
 * records backwards by an index.
 */
export async function run() {
  if (!existsSync(CHROMIUM)) {
    console.warn(`!!! browser-task-list: Chromium not found at ${CHROMIUM} (apt-get install chromium): not measured`);
    return;
  }
  const dir = await mkdtemp(path.join(tmpdir(), 'orbita-browser-bench-'));
  const root = fileURLToPath(new URL('..', import.meta.url));
  await build({
    entryPoints: [path.join(root, 'bench/browser/task-list.page.ts')],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    outfile: path.join(dir, 'page.js'),
    tsconfig: path.join(root, 'tsconfig.json'),
    logLevel: 'silent',
    define: { 'process.env.NODE_ENV': '"production"' },
  });
  await writeFile(path.join(dir, 'index.html'), '<!doctype html><script type="module" src="/page.js"></script>');
  // IndexedDB needs an origin: the page is served over HTTP.
  const server = createServer(async (request, response) => {
    const file = request.url === '/page.js' ? 'page.js' : 'index.html';
    const { readFile } = await import('node:fs/promises');
    response.setHeader('Content-Type', file.endsWith('.js') ? 'text/javascript' : 'text/html');
    response.end(await readFile(path.join(dir, file)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  try {
    const page = await browser.newPage();
    await page.goto(`http://127.0.0.1:${(server.address() as { port: number }).port}/`);
    await page.waitForFunction(() => 'runBench' in window);
    const result = (await page.evaluate(
      (count) => (window as unknown as { runBench(count: number): Promise<unknown> }).runBench(count),
      TASKS,
    )) as { rawMs: number; pagedMs: number; skippedMs: number; wholeMs: number; mineMs: number; mineHereMs: number };
    report(
      `browser task list, first page of ${TASKS} tasks on Dexie (${result.pagedMs.toFixed(1)} ms) vs IndexedDB reading the 50 newest backwards (${result.rawMs.toFixed(1)} ms)`,
      1000 / result.pagedMs,
      1000 / result.rawMs,
      'pages/s',
    );
    console.log(`  the same page reached with skip (how the list read it before): ${result.skippedMs.toFixed(0)} ms`);
    console.log(
      `  every task of the form read instead (as Dexie reads them for "mine" or a search, keeping the matches): ${result.wholeMs.toFixed(0)} ms`,
    );
    console.log(
      `  "mine" (${TASKS / 500} tasks): tested in the storage ${result.mineMs.toFixed(0)} ms, every task read and tested in the page ${result.mineHereMs.toFixed(0)} ms`,
    );
  } finally {
    await browser.close();
    server.close();
    await rm(dir, { recursive: true, force: true });
  }
}
