import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { DEFAULT_SERVER_URL, type DesktopLanguage, type DesktopTileSource } from '@shared/desktop/bridge';
// zod's mini build: the full one would be most of the main bundle.
import * as z from 'zod/mini';

/** The desktop app's own settings, kept as JSON in userData (`settings.json`). */
export interface DesktopSettings {
  /** The server to use when ORBITA_SERVER_URL is not set. */
  serverUrl?: string;
  /** The interface language the page last reported (menus start in it). */
  language?: DesktopLanguage;
  /** The organization's map tile source the page last reported (its tile cache and CSP follow it from the start). */
  tileSource?: DesktopTileSource;
}

const storedSettings = z.object({
  serverUrl: z.optional(z.string()),
  language: z.optional(z.enum(['ru', 'en'])),
  tileSource: z.optional(z.object({ kind: z.enum(['raster', 'style', 'pmtiles']), url: z.string() })),
});

/** The settings in `file`; none when it is missing or unreadable. */
export function readSettings(file: string): DesktopSettings {
  try {
    const parsed = storedSettings.safeParse(JSON.parse(readFileSync(file, 'utf8')));
    return parsed.success ? parsed.data : {};
  } catch {
    return {};
  }
}

export function writeSettings(file: string, settings: DesktopSettings): void {
  mkdirSync(path.dirname(file), { recursive: true });
  const temporary = `${file}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(settings, null, 2)}\n`);
  renameSync(temporary, file);
}

/** `value` as a server base URL (http or https, no credentials, no trailing slash), or undefined. */
export function normalizeServerUrl(value: string | undefined): string | undefined {
  if (!value) return undefined;
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    return undefined;
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.username || url.password) return undefined;
  return `${url.origin}${url.pathname}`.replace(/\/+$/, '');
}

/** The server the app talks to: ORBITA_SERVER_URL, else the saved setting, else the local default. */
export function resolveServerUrl(environmentValue: string | undefined, settings: DesktopSettings): string {
  return normalizeServerUrl(environmentValue) ?? normalizeServerUrl(settings.serverUrl) ?? DEFAULT_SERVER_URL;
}

/** The menus' first language, from the OS locale, by the rule the renderer applies to the browser's language. */
export function languageFromLocale(locale: string): DesktopLanguage {
  return locale.toLowerCase().startsWith('en') ? 'en' : 'ru';
}
