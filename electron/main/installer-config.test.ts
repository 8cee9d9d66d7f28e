import { readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { fileURLToPath } from 'node:url';
import { DEEP_LINK_SCHEME } from '@shared/desktop/deep-link';
import { load } from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { BUNDLES } from './desktop-app';

const root = fileURLToPath(new URL('../..', import.meta.url));
const read = (file: string) => readFileSync(`${root}/${file}`, 'utf8');

interface BuilderConfig {
  electronVersion: string;
  files: string[];
  asarUnpack: string[];
  npmRebuild: boolean;
  protocols: { schemes: string[] }[];
  linux: { target: string[] };
  win: { target: string[] };
  mac: { target: string[] };
}

const config = load(read('electron-builder.yml')) as BuilderConfig;
const pkg = JSON.parse(read('package.json')) as { main: string; optionalDependencies: Record<string, string> };

/** Packages a CommonJS file requires, by name (relative paths and Node's own modules left out). */
function packagesRequiredBy(file: string): string[] {
  const names = [...read(file).matchAll(/\brequire\(\s*['"]([^'"]+)['"]\s*\)/g)].map((match) => match[1] as string);
  return names.filter((name) => !name.startsWith('.') && !builtinModules.includes(name.replace(/^node:/, '')));
}

/**
 * The installers cannot be built here (electron-builder downloads Electron), so what they are built
 * from is checked: the same Electron as the one installed, everything the app loads at run time
 * packed, the native module where it can be loaded, the link scheme and every platform's target.
 */
describe('installer configuration (electron-builder.yml)', () => {
  it('pins the Electron that package.json installs and starts the main bundle', () => {
    expect(config.electronVersion).toBe(pkg.optionalDependencies.electron);
    expect(pkg.main).toBe(BUNDLES.main);
    for (const bundle of Object.values(BUNDLES)) expect(bundle).toMatch(/^electron\/dist\/[^/]+\.cjs$/);
    expect(config.files).toEqual(expect.arrayContaining(['package.json', 'electron/dist/*.cjs', 'renderer/dist/**/*']));
  });

  it('packs better-sqlite3 with what it requires at run time, rebuilt for Electron and outside the archive', () => {
    expect(config.files).toContain('!**/node_modules/**/*');
    const packed = (name: string) =>
      config.files.some((glob) => glob === `node_modules/${name}/**/*` || glob.startsWith(`node_modules/${name}/`));
    const runtime = new Set<string>(['better-sqlite3']);
    for (const file of ['lib/index.js', 'lib/database.js']) {
      for (const name of packagesRequiredBy(`node_modules/better-sqlite3/${file}`)) runtime.add(name);
    }
    for (const name of packagesRequiredBy('node_modules/bindings/bindings.js')) runtime.add(name);
    expect([...runtime].sort()).toEqual(['better-sqlite3', 'bindings', 'file-uri-to-path']);
    for (const name of runtime) expect(packed(name), name).toBe(true);
    expect(config.files).toContain('node_modules/better-sqlite3/build/Release/better_sqlite3.node');
    expect(config.npmRebuild).toBe(true);
    expect(config.asarUnpack).toContain('node_modules/better-sqlite3/**/*');
  });

  it('registers the orbita:// links and builds AppImage and deb, NSIS and dmg', () => {
    expect(config.protocols.flatMap((protocol) => protocol.schemes)).toContain(DEEP_LINK_SCHEME);
    expect(config.linux.target).toEqual(['AppImage', 'deb']);
    expect(config.win.target).toEqual(['nsis']);
    expect(config.mac.target).toEqual(['dmg']);
  });
});
