import { existsSync } from 'node:fs';
import { chromium } from 'playwright-core';
import { createApp } from '../server/src/app';
import { loadConfig } from '../server/src/platform/config';
import { createLogger } from '../server/src/platform/logging';
import { CHROMIUM, registeredPage } from '../test/helpers/browser';
import { benchDatabase, report } from './lib';

const OBJECTS = 2_000;
const SECONDS = 20;

/**
 * The map in Chromium (WebGL through SwiftShader): 2,000 objects each moving once a second, the
 * objects source updated in place, against the same map with nothing moving. Prints the frame
 * time's p95 (from requestAnimationFrame) of both.
 */
export async function run() {
  if (!existsSync(CHROMIUM)) {
    console.warn(`!!! gps-map: Chromium not found at ${CHROMIUM}: not measured`);
    return;
  }
  const database = await benchDatabase();
  const config = loadConfig({ PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent', NODE_ENV: 'production' });
  const app = createApp({
    config,
    db: database.db,
    logger: createLogger(config),
    webRoot: process.env.E2E_WEB_ROOT,
  });
  const { url } = await app.listen();
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--enable-unsafe-swiftshader', '--use-angle=swiftshader'],
  });
  try {
    const { page } = await registeredPage(browser, url, {
      organization: 'Bench',
      name: 'Bench',
      email: `bench-${Date.now()}@example.org`,
    });
    await page.goto(`${url}/map`);
    await page.waitForFunction(() =>
      (window as unknown as { orbitaMap?: { map: { loaded(): boolean } } }).orbitaMap?.map.loaded(),
    );
    // Plain JavaScript in a string: functions passed from here would carry the transpiler's helpers.
    const frames = (moving: boolean): Promise<number> =>
      page.evaluate(`(async () => {
        const view = window.orbitaMap;
        const count = ${OBJECTS}, seconds = ${SECONDS}, move = ${moving};
        const objects = Array.from({ length: count }, (_, i) => ({
          lon: 37.3 + (i % 50) * 0.014, lat: 55.55 + Math.floor(i / 50) * 0.011, course: (i * 37) % 360,
        }));
        function collection() {
          return { type: 'FeatureCollection', features: objects.map((o, i) => ({
            type: 'Feature', id: i, geometry: { type: 'Point', coordinates: [o.lon, o.lat] },
            properties: { id: 'o' + i, name: 'Truck ' + i, state: 'moving', icon: 'object:vehicle:moving',
              label: 'label:Truck ' + i, course: o.course, hasCourse: true, selected: false },
          })) };
        }
        view.set('objects', collection());
        const times = [];
        let last = performance.now();
        const end = last + seconds * 1000;
        let nextMove = last + 1000;
        await new Promise((resolve) => {
          function frame(now) {
            times.push(now - last);
            last = now;
            if (move && now >= nextMove) {
              nextMove += 1000;
              for (const o of objects) {
                o.lat += 0.0002 * Math.cos(o.course * Math.PI / 180);
                o.lon += 0.0003 * Math.sin(o.course * Math.PI / 180);
              }
              view.set('objects', collection());
            }
            // The map draws every frame in both runs, so the frames compare like with like.
            view.map.triggerRepaint();
            if (now < end) requestAnimationFrame(frame); else resolve();
          }
          requestAnimationFrame(frame);
        });
        times.sort((a, b) => a - b);
        return times[Math.floor(times.length * 0.95)] || 0;
      })()`);
    const still = await frames(false);
    const moving = await frames(true);
    report(
      `gps map, ${OBJECTS} objects moving once a second (frame p95 ${moving.toFixed(1)} ms) vs the same map still (${still.toFixed(1)} ms)`,
      1000 / moving,
      1000 / still,
      'frames/s at p95',
    );
  } finally {
    await browser.close();
    await app.close();
    await database.drop();
  }
}
