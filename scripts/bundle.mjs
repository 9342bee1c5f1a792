#!/usr/bin/env node
// Makes dtrace(1) start fast, in two steps, each falling back to the one before it:
// 1. dist/cli/start.bundle.mjs: dist/ in one ES module. Node resolves and links each module
//    separately, which cost dtrace about a fifth of its start-up; one file loads in a fraction of
//    that. Chevrotain stays outside (src/compiler/chevrotain.ts loads its own single-file bundle).
// 2. dist/cli/dtrace.blob: a V8 start-up snapshot (node --build-snapshot) of dist/ and Chevrotain
//    bundled as one CommonJS script, loaded and with the parser warmed (cli/snapshot.ts). It is
//    tied to the node binary that built it and to where it was built (dtrace.blob.root); bin/dtrace
//    uses it there, while it is newer than both that binary and dist/cli/main.js.
// bin/dtrace.mjs uses the bundle only while it is newer than dist/cli/main.js, so a later `tsc`
// alone never runs stale code.
import { spawnSync } from 'node:child_process';
import { realpathSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

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
// module's import.meta.url the ES bundle's, so that paths resolve as they do from it.
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
  define: { 'import.meta.url': JSON.stringify(pathToFileURL(path.join(cli, 'start.bundle.mjs')).href) },
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
const built = spawnSync(process.execPath, ['--snapshot-blob', blob, '--build-snapshot', script], { encoding: 'utf8' });
// Paths are in the snapshot: bin/dtrace uses it only where it was built.
if (built.status === 0) writeFileSync(`${blob}.root`, `${realpathSync(root)}\n`);
else {
  rmSync(blob, { force: true });
  console.error(`bundle: no start-up snapshot (dtrace starts from the bundle): ${(built.stderr || built.error?.message || '').trim().split('\n').pop()}`);
}
