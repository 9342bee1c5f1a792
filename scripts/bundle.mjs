#!/usr/bin/env node
// Makes dtrace(1) start fast, in two steps, each falling back to the one before it:
// 1. dist/cli/start.bundle.mjs: dist/ in one ES module. Node resolves and links each module
//    separately, which cost dtrace about a fifth of its start-up; one file loads in a fraction of
//    that. Chevrotain stays outside (src/compiler/chevrotain.ts loads its own single-file bundle).
// 2. dist/cli/dtrace.blob: a V8 start-up snapshot (node --build-snapshot) of dist/ and Chevrotain
//    bundled as one CommonJS script (dist/cli/snapshot.cjs, which finds its place at build time,
//    so that the package carries it and install.mjs builds the snapshot where it is installed),
//    loaded and with the parser warmed (cli/snapshot.ts). It is tied to the node binary that built
//    it and to where it was built (dtrace.blob.root); bin/dtrace uses it there, while it is newer
//    than both that binary and dist/cli/main.js (scripts/snapshot.mjs).
// bin/dtrace.mjs uses the bundle only while it is newer than dist/cli/main.js, so a later `tsc`
// alone never runs stale code.
import { rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildSnapshot } from './snapshot.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const cli = path.join(root, 'dist/cli');
let esbuild;
try {
  esbuild = await import('esbuild');
} catch {
  console.error('bundle: esbuild is not installed; dtrace runs from dist/ unbundled');
  process.exit(0);
}
// The fleet consumer (cli/fleet.js, with NATS) stays out of both: main.js imports it only when a
// fleet is configured, from dist/ beside the bundle.
const fleetOutside = {
  name: 'fleet-outside',
  setup(build) {
    build.onResolve({ filter: /^\.\/fleet\.js$/ }, (a) => ({ path: a.path, external: true }));
  },
};
await esbuild.build({
  entryPoints: [path.join(cli, 'start.js')],
  plugins: [fleetOutside],
  outfile: path.join(cli, 'start.bundle.mjs'),
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  external: ['chevrotain'],
  logLevel: 'warning',
});

// The snapshot's script: CommonJS (what --build-snapshot runs), Chevrotain inside, and every
// module's import.meta.url the ES bundle's beside it (found from __dirname when the snapshot is
// built, so the script does not name the tree it was bundled in), so that paths resolve as they
// do from the bundle.
const blob = path.join(cli, 'dtrace.blob');
const script = path.join(cli, 'snapshot.cjs');
rmSync(blob, { force: true });
rmSync(`${blob}.root`, { force: true });
await esbuild.build({
  entryPoints: [path.join(cli, 'snapshot.js')],
  outfile: script,
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  banner: { js: "'use strict';\nvar __dtraceBundleUrl = require('node:url').pathToFileURL(require('node:path').join(__dirname, 'start.bundle.mjs')).href;" },
  define: { 'import.meta.url': '__dtraceBundleUrl' },
  minifyWhitespace: true, // it is packed; names stay as they are (stacks, errors)
  plugins: [fleetOutside, {
    name: 'chevrotain-inside',
    setup(build) {
      // chevrotain.ts finds and imports Chevrotain's own bundle at run time (top-level await,
      // which CommonJS has not): here it is a plain import, bundled.
      build.onLoad({ filter: /[/\\]compiler[/\\]chevrotain\.js$/ }, () => ({
        contents: "export { createToken, Lexer, tokenMatcher, EmbeddedActionsParser, EOF, LLkLookaheadStrategy } from 'chevrotain';",
        resolveDir: path.join(root, 'dist/compiler'),
      }));
    },
  }],
  logLevel: 'warning',
});
const why = buildSnapshot(root);
if (why) console.error(`bundle: no start-up snapshot (dtrace starts from the bundle): ${why}`);
