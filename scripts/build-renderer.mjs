// Builds the web interface when its sources are newer than the last build (before `npm start`
// and `npm test`), so the two README commands always serve the current interface.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const built = path.join(root, 'renderer/dist/index.html');

function newest(target) {
  if (!existsSync(target)) return 0;
  const stat = statSync(target);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(0, ...readdirSync(target).map((name) => newest(path.join(target, name))));
}

const sources = Math.max(
  newest(path.join(root, 'renderer/src')),
  newest(path.join(root, 'renderer/index.html')),
  newest(path.join(root, 'renderer/public')),
  newest(path.join(root, 'renderer/vite.config.ts')),
  newest(path.join(root, 'shared/src')),
);
if (!existsSync(built) || statSync(built).mtimeMs < sources) {
  console.log('Building the web interface…');
  execFileSync(
    process.execPath,
    [
      path.join(root, 'node_modules/vite/bin/vite.js'),
      'build',
      '--config',
      'renderer/vite.config.ts',
      '--logLevel',
      'warn',
    ],
    {
      cwd: root,
      stdio: 'inherit',
    },
  );
}
