#!/usr/bin/env node
// `prepack`: puts the native addon, built from native/ here, in prebuilds/PLATFORM-ARCH/ of the
// package, where node-gyp-build finds it at install (and so skips building) and at run time.
// An install without scripts (npm install --ignore-scripts, or npm's allowScripts refusing them)
// then still has a working addon on a machine like this one. `--clean` (postpack) removes it, so a
// clone's own `npm install` keeps building from source.
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const prebuilds = path.join(root, 'prebuilds');
if (process.argv.includes('--clean')) {
  rmSync(prebuilds, { recursive: true, force: true });
  process.exit(0);
}

const built = path.join(root, 'build/Release/dtrace_native.node');
const sources = [path.join(root, 'binding.gyp'), ...readdirSync(path.join(root, 'native')).map((f) => path.join(root, 'native', f))];
const newest = Math.max(...sources.map((f) => statSync(f).mtimeMs));
// The addon node-gyp built in this tree, unless a source is newer.
if (!existsSync(built) || statSync(built).mtimeMs < newest) {
  execFileSync(process.execPath, [path.join(root, 'node_modules/node-gyp/bin/node-gyp.js'), 'rebuild'], { cwd: root, stdio: 'inherit' });
}
// node-gyp-build's naming: an N-API build for any Node.js of this platform, arch and C library.
const dir = path.join(prebuilds, `${process.platform}-${process.arch}`);
rmSync(prebuilds, { recursive: true, force: true });
mkdirSync(dir, { recursive: true });
copyFileSync(built, path.join(dir, 'node.napi.glibc.node'));
