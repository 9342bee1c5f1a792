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
// A clone not yet built (or a package packed without `prepack`) has no dist/: say what to run.
let start;
try {
  ({ start } = await import(new URL(entry(), dist).href));
} catch (e) {
  if (e.code !== 'ERR_MODULE_NOT_FOUND' || !String(e.message).includes('/dist/cli/')) throw e;
  const root = new URL('..', import.meta.url).pathname.replace(/\/$/, '');
  process.stderr.write(`dtrace: failed to initialize dtrace: the compiled program (${root}/dist) is missing: run "npm install" (or "npm run build") in ${root}\n`);
  process.exit(1);
}
await start(process.argv.slice(2));
