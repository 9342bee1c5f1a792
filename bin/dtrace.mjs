#!/usr/bin/env node
// dtrace(1) from dist/ (bin/dtrace runs this when it has no start-up snapshot to run).
import { statSync } from 'node:fs';

// dist/cli/start.bundle.mjs (scripts/bundle.mjs) is dist/ in one file, which starts much faster;
// it is stale once tsc has rebuilt main.js after it, and then dist/ is loaded as it is.
const dist = new URL('../dist/cli/', import.meta.url);
function entry() {
  try {
    if (statSync(new URL('start.bundle.mjs', dist)).mtimeMs >= statSync(new URL('main.js', dist)).mtimeMs) return 'start.bundle.mjs';
  } catch { /* no bundle */ }
  return 'start.js';
}
const { start } = await import(new URL(entry(), dist).href);
await start(process.argv.slice(2));
