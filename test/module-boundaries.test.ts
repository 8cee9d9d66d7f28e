import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { boundaryViolations, readModuleSources } from './helpers/module-boundaries';

const modulesDir = fileURLToPath(new URL('../server/src/modules', import.meta.url));

describe('module boundaries', () => {
  it('hold in the server: no module reads another one’s repo, routes call services, SQL lives in repos', () => {
    const sources = readModuleSources(modulesDir);
    expect(sources.length).toBeGreaterThan(40);
    expect(boundaryViolations(sources)).toEqual([]);
  });

  it('catch a deliberate violation of each rule', () => {
    const violations = boundaryViolations([
      { file: 'qr/qr.service.ts', text: "import * as tasks from '../tasks/tasks.repo';" },
      { file: 'qr/qr-types.ts', text: "import type { TaskRow } from '../tasks/tasks.repo';" },
      { file: 'forms/forms.routes.ts', text: "import { findForm } from './forms.repo';" },
      { file: 'forms/forms.sync.ts', text: 'const { rows } = await db.query<Row>(`SELECT 1`);' },
      {
        file: 'forms/forms.service.ts',
        text: "import * as repo from './forms.repo';\nexport { canUseForm } from './forms.policy';",
      },
      { file: 'forms/forms.repo.ts', text: "await db.query('SELECT 1');" },
    ]);
    expect(violations).toEqual([
      "qr/qr.service.ts imports ../tasks/tasks.repo: ask the tasks module's service instead",
      "qr/qr-types.ts imports ../tasks/tasks.repo: ask the tasks module's service instead",
      "forms/forms.routes.ts imports ./forms.repo: routes call their module's service",
      "forms/forms.sync.ts runs SQL: queries belong in the module's repo",
    ]);
  });
});
