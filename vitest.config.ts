import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // Kernel tests share per-CPU buffers and CPU time: run files one at a time.
    fileParallelism: false,
    // The parser skips Chevrotain's grammar validations at run time; tests keep them on.
    env: { DTRACE_VALIDATE_GRAMMAR: '1' },
    setupFiles: ['test/helpers/setup.ts'],
    // The default report, then every skipped test with its reason (test/helpers/skip-reporter.ts).
    reporters: ['default', './test/helpers/skip-reporter.ts'],
  },
});
