import { open, readFile, rm } from 'node:fs/promises';
import path from 'node:path';

export class DataDirLockedError extends Error {}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Takes `<dir>/orbita.lock` for this process. The embedded engine's files must be used by one
 * process at a time: a second server on the same DATA_DIR would corrupt them. A lock left by a
 * process that no longer runs is taken over.
 */
export async function lockDataDir(dir: string): Promise<() => Promise<void>> {
  const file = path.join(dir, 'orbita.lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const handle = await open(file, 'wx');
      await handle.writeFile(String(process.pid));
      await handle.close();
      return () => rm(file, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const pid = Number.parseInt(await readFile(file, 'utf8').catch(() => ''), 10);
      if (Number.isInteger(pid) && pid !== process.pid && isRunning(pid)) {
        throw new DataDirLockedError(
          `The data directory ${path.resolve(dir)} is in use by another Orbita process (pid ${pid}). ` +
            'Stop that process, or set DATA_DIR to another directory, or set DATABASE_URL to use a PostgreSQL server.',
        );
      }
      await rm(file, { force: true });
    }
  }
  throw new DataDirLockedError(`Could not take the lock ${file}`);
}
