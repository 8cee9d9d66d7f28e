import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: {
    alias: { '@shared': fileURLToPath(new URL('./shared/src', import.meta.url)) },
  },
  test: {
    include: [
      'server/**/*.test.ts',
      'shared/**/*.test.ts',
      'electron/**/*.test.ts',
      'renderer/**/*.test.ts',
      'test/**/*.test.ts',
    ],
    globalSetup: ['test/global-setup.ts'],
    // Each file gets its own database; two workers match the two cores of the CI machines.
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 120_000,
    env: { LOG_LEVEL: 'silent', NODE_ENV: 'test' },
  },
});
