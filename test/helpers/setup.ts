// Run before every test file (vitest.config.ts setupFiles).
import { afterAll } from 'vitest';
import { killBackgroundDtraces } from './run.js';
import { checkGrammarWhenBuilt } from '../../src/compiler/parser.js';

// The tests keep Chevrotain's checks of the grammar on, which dtrace skips.
checkGrammarWhenBuilt();

// A failed test may not have stopped the dtrace it started in the background.
afterAll(() => killBackgroundDtraces());
