// Pass 1 over dtrace(1)'s command line: the mode (trace, -l, -e, -h/-G, -V) and the combinations
// dtrace refuses.

import type { ParsedArgs } from './args.js';
import { E_USAGE, Fatal } from './fatal.js';
import { API_VERSION } from './usage.js';
import { VERSION } from '../version.js';

/** What pass 1 makes of the command line: which mode dtrace runs in. */
export interface Mode {
  count: (letter: string) => number;
  listing: boolean;
  execute: boolean;
  /** -B: output through the buffered output handler (consumer/buffered.ts), only when tracing. */
  buffered: boolean;
}

/** Pass 1: the mode the options choose, or 'version' once -V has printed it. */
export function readMode(args: ParsedArgs): Mode | 'version' {
  const count = (l: string) => args.options.filter((o) => o.letter === l).length;
  if (count('A') + count('G') + count('h') + count('l') + count('V') > 1)
    throw new Fatal('only one of the [-AGhlV] options can be specified at a time', E_USAGE);
  if (count('V')) {
    process.stdout.write(`dtrace: ${API_VERSION}\n`);
    // -vV: the D version in full as DTrace says it ("This is DTrace M.m.u", whose numbers make
    // __SUNW_D_VERSION: scripts read it so), then this implementation's own version.
    if (count('v')) process.stdout.write(`This is DTrace ${dVersionTriple()}\nThis is node-dtrace ${VERSION}\n`);
    return 'version';
  }
  if (count('a') || count('A'))
    throw new Fatal(`-${count('a') ? 'a' : 'A'}: anonymous tracing is not available on Linux: it needs the Solaris DTrace driver, which keeps enablings from boot on`);
  // -64 is the data model this dtrace always compiles for; -32 asks for one it cannot.
  if (count('3')) throw new Fatal('-32: 32-bit D programs are not supported: this dtrace compiles for the 64-bit data model of the kernel it runs on');
  const listing = count('l') > 0;
  const buffered = count('B') > 0;
  if (buffered && (count('G') || count('h') || listing))
    throw new Fatal('-B not valid in combination with [-AGl] options', E_USAGE);
  if (buffered && count('o')) throw new Fatal('-B not valid in combination with -o option', E_USAGE);
  return { count, listing, execute: count('e') === 0, buffered };
}

/** API_VERSION's number as major.minor.micro ("1.13" is 1.13.0). */
function dVersionTriple(): string {
  const [major, minor = '0', micro = '0'] = API_VERSION.replace(/^.* /, '').split('.');
  return `${major}.${minor}.${micro}`;
}
