import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** A source file of a server module: its path from `server/src/modules` and its text. */
export interface ModuleSource {
  file: string;
  text: string;
}

/** Every non-test TypeScript file under `modulesDir`, by its path relative to it. */
export function readModuleSources(modulesDir: string): ModuleSource[] {
  const sources: ModuleSource[] = [];
  for (const entry of readdirSync(modulesDir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.ts') || entry.name.endsWith('.test.ts')) continue;
    const full = path.join(entry.parentPath, entry.name);
    sources.push({ file: path.relative(modulesDir, full).split(path.sep).join('/'), text: readFileSync(full, 'utf8') });
  }
  return sources.sort((a, b) => a.file.localeCompare(b.file));
}

const IMPORT = /(?:import|export)\s+(?:type\s+)?(?:[^'"]*?\s+from\s+)?['"]([^'"]+)['"]/g;
const QUERY_CALL = /\.query\s*(?:<[^>]*>)?\s*\(|\b(?:db|tx)\.exec\s*\(/;

/**
 * The module rules a source breaks: a module reaches another only through its service (never its
 * repo); routes call services, not repos; SQL is written only in repos.
 */
export function boundaryViolations(sources: readonly ModuleSource[]): string[] {
  const violations: string[] = [];
  for (const { file, text } of sources) {
    const module = file.split('/')[0];
    const isRepo = file.endsWith('.repo.ts');
    for (const [, specifier] of text.matchAll(IMPORT)) {
      if (!specifier?.startsWith('.')) continue;
      const target = path.posix.normalize(path.posix.join(path.posix.dirname(file), specifier));
      const targetModule = target.split('/')[0];
      const targetIsRepo = target.endsWith('.repo');
      if (targetIsRepo && targetModule !== module) {
        violations.push(`${file} imports ${specifier}: ask the ${targetModule} module's service instead`);
      } else if (targetIsRepo && file.endsWith('.routes.ts')) {
        violations.push(`${file} imports ${specifier}: routes call their module's service`);
      }
    }
    if (!isRepo && QUERY_CALL.test(text)) {
      violations.push(`${file} runs SQL: queries belong in the module's repo`);
    }
  }
  return violations;
}
