#!/usr/bin/env node
// npm's `prepare`: in a clone, `npm install` builds dist/ here. `npm pack` and `npm publish` run
// `prepack` (which builds dist/ and the prebuilt addon) and then `prepare` too: skip the second build.
// An installed package (dist/ built, no src/) has nothing to build.
import { execSync } from 'node:child_process';
import { existsSync } from 'node:fs';

if (process.env.npm_command === 'pack' || process.env.npm_command === 'publish') process.exit(0);
if (!existsSync(new URL('../src', import.meta.url))) process.exit(0);
execSync('npm run build', { stdio: 'inherit' });
