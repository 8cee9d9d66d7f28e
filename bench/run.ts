import { readdir } from 'node:fs/promises';

// `npm run bench [name]`: runs every bench/*.bench.ts (or those whose name contains the argument).
const filter = process.argv[2] ?? '';
const files = (await readdir(new URL('.', import.meta.url))).filter(
  (f) => f.endsWith('.bench.ts') && f.includes(filter),
);
for (const file of files.sort()) {
  console.log(`\n== ${file}`);
  const bench = (await import(new URL(file, import.meta.url).href)) as { run: () => Promise<void> };
  await bench.run();
}
