// Run before every test file (vitest.config.ts setupFiles).
import { afterAll } from 'vitest';
import { killBackgroundDtraces } from './run.js';

// A failed test may not have stopped the dtrace it started in the background.
afterAll(() => killBackgroundDtraces());
