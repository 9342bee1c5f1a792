#!/usr/bin/env node
// Bundles dtrace(1)'s compiled modules (dist/, ~100 ES modules) into one file beside its entry
// point, dist/cli/main.bundle.mjs. Node resolves and links each ES module separately, which cost
// dtrace about a fifth of its start-up; one file loads in a fraction of that. bin/dtrace uses the
// bundle only while it is newer than dist/cli/main.js, so a later `tsc` alone never runs stale
// code. Chevrotain stays outside (src/compiler/chevrotain.ts loads its own single-file bundle).
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
let esbuild;
try {
  esbuild = await import('esbuild');
} catch {
  console.error('bundle: esbuild is not installed; dtrace runs from dist/ unbundled');
  process.exit(0);
}
await esbuild.build({
  entryPoints: [path.join(root, 'dist/cli/main.js')],
  outfile: path.join(root, 'dist/cli/main.bundle.mjs'),
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  external: ['chevrotain'],
  logLevel: 'warning',
});
