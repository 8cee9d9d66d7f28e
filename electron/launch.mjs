// `npm run desktop`: builds the interface and the desktop bundles, then starts Electron on this
// folder. Electron is an optional dependency; without it this says how to install it.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

/** The path of the Electron binary the `electron` package installed, or undefined without one. */
export function electronBinary(load = createRequire(import.meta.url)) {
  try {
    const binary = load('electron');
    return typeof binary === 'string' && existsSync(binary) ? binary : undefined;
  } catch {
    // The package is missing, or its binary was never downloaded (it throws then).
    return undefined;
  }
}

/** What to tell someone who runs the desktop app without Electron installed. */
export function missingElectronMessage(version) {
  return [
    'Electron is not installed, so the desktop app cannot start.',
    `It is an optional dependency (electron@${version}): npm install skips it where its binary cannot be downloaded.`,
    `Install it with \`npm install --no-save electron@${version}\` (or run \`npm install\` again where the download works),`,
    'then run `npm run desktop` again.',
  ].join('\n');
}

/** What to tell someone whose better-sqlite3 is built for Node rather than for Electron. */
export function nativeModuleMessage(version) {
  return [
    'better-sqlite3 is built for Node, not for Electron: the offline replica will not start (the rest of the app works).',
    `Fetch its Electron build with \`cd node_modules/better-sqlite3 && ../.bin/prebuild-install --runtime electron --target ${version}\`;`,
    '`npm rebuild better-sqlite3` builds it for Node again (npm test needs that).',
  ].join('\n');
}

/** Whether the Node of `binary` (Electron's, run as Node) can load better-sqlite3: a native module is built for one runtime. */
export function sqliteLoadsIn(binary) {
  const probe = "new (require('better-sqlite3'))(':memory:').close()";
  const result = spawnSync(binary, ['-e', probe], { cwd: root, env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' } });
  return result.status === 0;
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  const binary = electronBinary();
  const version = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')).optionalDependencies.electron;
  if (!binary) {
    console.error(missingElectronMessage(version));
    process.exit(1);
  }
  if (!sqliteLoadsIn(binary)) console.warn(nativeModuleMessage(version));
  execFileSync(process.execPath, [path.join(root, 'scripts/build-renderer.mjs')], { cwd: root, stdio: 'inherit' });
  const { buildDesktop } = await import('../scripts/build-desktop.mjs');
  await buildDesktop();
  // Set, it would make Electron run as plain Node.
  const { ELECTRON_RUN_AS_NODE: _runAsNode, ...env } = process.env;
  const child = spawn(binary, ['.', ...process.argv.slice(2)], { cwd: root, env, stdio: 'inherit' });
  for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
}
