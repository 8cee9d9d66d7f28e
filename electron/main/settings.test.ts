import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { languageFromLocale, readSettings, resolveServerUrl, writeSettings } from './settings';

let dir: string;

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'orbita-settings-'));
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('desktop settings', () => {
  it('takes the server from ORBITA_SERVER_URL, else the saved setting, else localhost:3000', () => {
    expect(resolveServerUrl('https://orbita.example.org/', { serverUrl: 'http://10.0.0.5:3000' })).toBe(
      'https://orbita.example.org',
    );
    expect(resolveServerUrl(undefined, { serverUrl: 'http://10.0.0.5:3000/' })).toBe('http://10.0.0.5:3000');
    expect(resolveServerUrl('', {})).toBe('http://localhost:3000');
    expect(resolveServerUrl(undefined, {})).toBe('http://localhost:3000');
  });

  it('ignores a server value that is not an http(s) URL', () => {
    expect(resolveServerUrl('localhost:3000', { serverUrl: 'http://10.0.0.5:3000' })).toBe('http://10.0.0.5:3000');
    expect(resolveServerUrl('file:///etc', { serverUrl: 'javascript:alert(1)' })).toBe('http://localhost:3000');
    expect(resolveServerUrl('http://user:password@host', {})).toBe('http://localhost:3000');
  });

  it('keeps a path prefix of the server but not its query', () => {
    expect(resolveServerUrl('https://example.org/orbita/?x=1#y', {})).toBe('https://example.org/orbita');
  });

  it('reads back what it wrote, and nothing from a corrupt file', () => {
    const file = path.join(dir, 'userData', 'settings.json');
    expect(readSettings(file)).toEqual({});
    writeSettings(file, { serverUrl: 'http://10.0.0.5:3000', language: 'en' });
    expect(readSettings(file)).toEqual({ serverUrl: 'http://10.0.0.5:3000', language: 'en' });
    writeFileSync(file, '{"language": ');
    expect(readSettings(file)).toEqual({});
    writeFileSync(file, '{"language": "de"}');
    expect(readSettings(file)).toEqual({});
  });

  it('starts the menus in English only for an English OS locale, as the renderer does', () => {
    expect(languageFromLocale('en-US')).toBe('en');
    expect(languageFromLocale('EN')).toBe('en');
    expect(languageFromLocale('ru-RU')).toBe('ru');
    expect(languageFromLocale('de-DE')).toBe('ru');
  });
});
