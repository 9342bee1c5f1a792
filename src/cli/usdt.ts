// dtrace -h and -G: USDT definitions from provider declarations (src/usdt/definitions.ts).

import { DefinitionError, writeHeader, writeObjects } from '../usdt/definitions.js';
import type { ParsedArgs } from './args.js';
import { Fatal } from './fatal.js';
import type { Mode } from './mode.js';
import { loadSources, type Settings } from './settings.js';

/** -h writes the header, -G the objects; returns dtrace's exit status. */
export function generateUsdt(args: ParsedArgs, s: Settings, mode: Mode): number {
  try {
    if (mode.count('h')) writeHeader(loadSources(s), s.output);
    else writeObjects(loadSources(s), s.output, args.operands);
  } catch (e) {
    if (e instanceof DefinitionError) throw new Fatal(e.message, e.status);
    throw e;
  }
  return 0;
}
