#!/usr/bin/env node
// npm's `install`: the native addon. In a clone (src/ is there) node-gyp builds it whenever a
// source is newer than the build, so `git pull && npm install` never keeps a stale addon. In an
// installed package, node-gyp-build keeps the prebuilt addon when it loads, else builds one; then
// the start-up snapshot is built for this node, here (a faster start; bin/dtrace does without).
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildSnapshot } from './snapshot.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const run = (script, args = []) => execFileSync(process.execPath, [script, ...args], { cwd: root, stdio: 'inherit' });

if (existsSync(path.join(root, 'src'))) {
  const built = path.join(root, 'build/Release/dtrace_native.node');
  const sources = [path.join(root, 'binding.gyp'), ...readdirSync(path.join(root, 'native')).map((f) => path.join(root, 'native', f))];
  const newest = Math.max(...sources.map((f) => statSync(f).mtimeMs));
  if (!existsSync(built) || statSync(built).mtimeMs < newest) run(path.join(root, 'node_modules/node-gyp/bin/node-gyp.js'), ['rebuild']);
} else {
  run(createRequire(import.meta.url).resolve('node-gyp-build/bin.js'));
  const why = buildSnapshot(root);
  if (why) console.error(`node-dtrace: no start-up snapshot (dtrace starts a little slower): ${why}`);
}
