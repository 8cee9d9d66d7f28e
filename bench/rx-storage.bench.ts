import { mkdtemp, rm } from 'node:fs/promises';
import { register } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { RxStorage } from 'rxdb';
import { getRxStorageMemory } from 'rxdb/plugins/storage-memory';
import { getRxStorageBetterSqlite } from '../electron/backend/rx-storage-sqlite/index';

/**
 * RxDB's `runPerformanceTests` imports two of RxDB's own development packages that RxDB does not
 * declare as dependencies (`async-test-util` for `wait`/`randomString`, `clone`). When they are not
 * installed, this resolve hook stands in for them with the two functions and the clone it uses; an
 * installed package always wins.
 */
const STAND_INS = {
  'async-test-util': `export const wait = (ms = 0) => new Promise((done) => setTimeout(done, ms));
export function randomString(length = 10, charset = 'abcdefghijklmnopqrstuvwxyz') {
  let text = '';
  for (let i = 0; i < length; i++) text += charset[Math.floor(Math.random() * charset.length)];
  return text;
}`,
  clone: 'export default (value) => structuredClone(value);',
};
const RESOLVE_HOOK = `const standIns = ${JSON.stringify(
  Object.fromEntries(
    Object.entries(STAND_INS).map(([name, source]) => [name, `data:text/javascript,${encodeURIComponent(source)}`]),
  ),
)};
export async function resolve(specifier, context, next) {
  try {
    return await next(specifier, context);
  } catch (error) {
    if (error?.code === 'ERR_MODULE_NOT_FOUND' && Object.hasOwn(standIns, specifier)) {
      return { url: standIns[specifier], shortCircuit: true };
    }
    throw error;
  }
}`;

/** Published figures of RxDB's premium SQLite storage for 3,000 documents (ms). */
const PREMIUM_SQLITE_REFERENCE: Record<string, number> = {
  'insert-documents-500': 9,
  'find-by-ids-3000': 20,
  'find-by-query': 17,
};

/**
 * Our RxDB storage on better-sqlite3 (a file database in a temporary directory) against RxDB's
 * in-memory storage, both through RxDB's own `runPerformanceTests` in the same process. Times are
 * milliseconds (lower is better); the goal is at most 3× the memory storage.
 */
export async function run() {
  register(`data:text/javascript,${encodeURIComponent(RESOLVE_HOOK)}`);
  const { runPerformanceTests } = await import('rxdb/plugins/test-utils');
  const runs = Number(process.env.RX_BENCH_RUNS ?? 20);
  const config = { runs, waitBetweenTests: 20, log: false };
  const directory = await mkdtemp(path.join(tmpdir(), 'orbita-rx-bench-'));
  try {
    const sqlite = getRxStorageBetterSqlite({ databaseDirectory: directory }) as unknown as RxStorage<unknown, unknown>;
    const memory = getRxStorageMemory() as unknown as RxStorage<unknown, unknown>;
    // One warm-up run each, so neither pays the JIT and module loading for the other.
    await runPerformanceTests(sqlite, 'warm-up', { ...config, runs: 1 });
    await runPerformanceTests(memory, 'warm-up', { ...config, runs: 1 });
    const ours = await runPerformanceTests(sqlite, 'better-sqlite3 (file, WAL)', config);
    const baseline = await runPerformanceTests(memory, 'memory', config);
    console.log(
      `RxDB runPerformanceTests: ${ours.docsAmount} documents, ${ours.collectionsAmount} collections, ${runs} runs`,
    );
    for (const [metric, value] of Object.entries(ours)) {
      const base = baseline[metric];
      if (
        typeof value !== 'number' ||
        typeof base !== 'number' ||
        metric === 'docsAmount' ||
        metric === 'collectionsAmount'
      ) {
        continue;
      }
      const reference = PREMIUM_SQLITE_REFERENCE[metric];
      console.log(
        `${metric}: better-sqlite3 ${value.toFixed(2)} ms vs memory ${base.toFixed(2)} ms — ratio ${(value / base).toFixed(2)}x memory's time${
          reference === undefined ? '' : ` (premium SQLite storage published ≈ ${reference} ms)`
        }`,
      );
    }
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}
