// Setup file of the unit tests (vitest.config.ts, project "unit"): the kernel's files are read
// from test/fixtures/ (unpacked by unit-setup.ts), never from this machine's kernel.
import path from 'node:path';
import { systemPaths } from '../../src/sys/paths.js';
import { ROOT } from './run.js';

const UNPACKED = path.join(ROOT, 'test/fixtures/.unpacked');
systemPaths.tracefs = [path.join(UNPACKED, 'tracefs')];
systemPaths.btfDir = path.join(UNPACKED, 'btf');
systemPaths.kallsyms = path.join(ROOT, 'test/fixtures/kallsyms');
// The parsed D library's cache is the machine's too: the unit tests parse afresh (library-cache.test.ts
// tests the cache in a directory of its own).
systemPaths.cacheDir = '';
