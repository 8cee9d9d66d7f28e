import { existsSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';

/**
 * Debian's Chromium, headless. Where it is missing the end-to-end suites skip with a loud message —
 * unless TEST_REQUIRE_CHROMIUM=1 (CI), where a missing browser fails the run.
 */
export function chromiumAvailable(): boolean {
  if (existsSync(CHROMIUM)) return true;
  if (process.env.TEST_REQUIRE_CHROMIUM === '1') throw new Error(`Chromium is required but missing at ${CHROMIUM}`);
  console.warn(
    `\n[orbita tests] !!! Chromium not found at ${CHROMIUM}: end-to-end tests are skipped (apt-get install chromium).\n`,
  );
  return false;
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}
