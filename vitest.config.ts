import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // Kernel tests share per-CPU buffers and CPU time: run files one at a time.
    fileParallelism: false,
    setupFiles: ['test/helpers/setup.ts'],
    // The default report, then every skipped test with its reason (test/helpers/skip-reporter.ts).
    reporters: ['default', './test/helpers/skip-reporter.ts'],
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          // Unit tests read fixtures, never this machine's kernel (test/helpers/unit-setup.ts).
          globalSetup: ['test/helpers/unit-setup.ts'],
          setupFiles: ['test/helpers/setup.ts', 'test/helpers/unit-paths.ts'],
        },
      },
      {
        extends: true,
        test: { name: 'e2e', include: ['test/e2e/**/*.test.ts'] },
      },
    ],
  },
});
