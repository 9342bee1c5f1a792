// Chevrotain, loaded from its single-file bundle: the package's entry point is ~150 modules whose
// loading alone costs about a quarter of a second, which every dtrace invocation would pay.

import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type * as Chevrotain from 'chevrotain';

const entry = createRequire(import.meta.url).resolve('chevrotain'); // .../lib/src/api.js
const bundle = path.join(path.dirname(entry), '..', 'chevrotain.mjs');
const mod = (await import(pathToFileURL(existsSync(bundle) ? bundle : entry).href)) as typeof Chevrotain;

export const { createToken, Lexer, tokenMatcher, EmbeddedActionsParser, EOF, LLkLookaheadStrategy } = mod;
export type { IOrAlt, IToken, OrMethodOpts, TokenType } from 'chevrotain';
