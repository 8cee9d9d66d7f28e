// Bundles the desktop shell for Electron, one CommonJS file each in electron/dist/: the main
// process, the preload (sandboxed preloads must be a single CommonJS file whose only require is
// 'electron') and the replica's utility process. `npm run build:desktop`; `npm run desktop` runs it.
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));

/** Builds the three bundles into `outdir` (default electron/dist) and returns their paths. */
export async function buildDesktop({ outdir = path.join(root, 'electron/dist') } = {}) {
  const bundles = {
    main: path.join(outdir, 'main.cjs'),
    preload: path.join(outdir, 'preload.cjs'),
    replicaProcess: path.join(outdir, 'replica-process.cjs'),
  };
  const common = {
    absWorkingDir: root,
    tsconfig: path.join(root, 'tsconfig.json'),
    bundle: true,
    format: 'cjs',
    logLevel: 'warning',
    legalComments: 'none',
  };
  await Promise.all([
    build({
      ...common,
      entryPoints: ['electron/main/index.ts'],
      outfile: bundles.main,
      platform: 'node',
      target: 'node22',
      external: ['electron'],
    }),
    build({
      ...common,
      entryPoints: ['electron/preload/index.ts'],
      outfile: bundles.preload,
      // The sandbox gives the preload a browser environment: a Node built-in would fail the build here.
      platform: 'browser',
      target: 'chrome130',
      external: ['electron'],
    }),
    build({
      ...common,
      entryPoints: ['electron/backend/replica-process.ts'],
      outfile: bundles.replicaProcess,
      platform: 'node',
      target: 'node22',
      // better-sqlite3 is native: it stays a package, rebuilt for Electron by electron-builder.
      external: ['electron', 'better-sqlite3'],
    }),
  ]);
  return bundles;
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  const { values } = parseArgs({ options: { outdir: { type: 'string' } } });
  const bundles = await buildDesktop({ outdir: values.outdir && path.resolve(values.outdir) });
  console.log(
    `Desktop bundles: ${Object.values(bundles)
      .map((file) => path.relative(process.cwd(), file))
      .join(', ')}`,
  );
}
