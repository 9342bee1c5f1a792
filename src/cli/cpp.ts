// -C: scripts go through the C preprocessor before the D compiler sees them, as in DTrace.
//
// The script is fed to cpp on its standard input with -D/-U/-I (and -H) in command-line order.
// cpp's line markers are kept so that compile errors still name the script's own lines: markers
// for the script itself become plain `#line N` (DTrace reports "line N:" for a script), markers
// for included files keep their file name. `#pragma D ...` lines pass through cpp unchanged.

import { spawnSync } from 'node:child_process';
import { basename } from 'node:path';
import { API_VERSION } from '../version.js';

/** __SUNW_D_VERSION: the D version as DTrace encodes it (major << 24 | minor << 12 | micro). */
const D_VERSION = (() => {
  const [major = 0, minor = 0, micro = 0] = (/(\d+(?:\.\d+)*)$/.exec(API_VERSION)?.[1] ?? '0').split('.').map(Number);
  return `0x${((major << 24) | (minor << 12) | micro).toString(16).padStart(8, '0')}`;
})();

export interface CppOptions {
  /** The cpp program (-x cpppath); "cpp" on PATH by default. */
  path?: string;
  /** -D/-U/-I arguments in order, already in cpp's form ("-DX=1", "-UY", "-Idir"). */
  args: string[];
  /** -H: let cpp list the files it includes, on stderr. */
  headers: boolean;
  /** -X s (-x stdc=s): K&R C only, so cpp runs traditional (no __STDC__, no # or ##), as in DTrace for Linux. */
  traditional?: boolean;
}

/**
 * cpp's arguments as DTrace for Linux gives them (its -xcpppath command sees exactly these): the D
 * compiler's macros, __GNUC__ undefined (so system headers drop their GNU C: __attribute__,
 * __asm__, __extension__, inline functions) and -std=c99, whose strict ISO mode keeps glibc's
 * headers to ISO declarations (<sys/types.h> then includes no byteswap functions). The C
 * compiler's other macros (the architecture, __INT_LEAST8_TYPE__ for <stdint.h>) stay defined.
 */
const PREDEFINED = ['-D__linux', '-D__unix', '-D__SVR4', '-D__SUNW_D=1', '-U__GNUC__', '-D__SUNW_D_64', '-D__Linux'];

export class CppError extends Error {}

/** Preprocess one script's text; returns what the D compiler is to read. */
export function preprocess(text: string, opts: CppOptions): string {
  // An interpreter line (#!) means nothing to cpp: blank it, keeping the line count.
  const input = text.startsWith('#!') ? text.replace(/^[^\n]*/, '') : text;
  // In DTrace for Linux's order, so that a -xcpppath command sees the same first option (-D).
  const argv = [...PREDEFINED, `-D__SUNW_D_VERSION=${D_VERSION}`, '-std=c99', ...(opts.traditional ? ['-traditional-cpp'] : []), ...opts.args, ...(opts.headers ? ['-H'] : []), '-'];
  // Its argv[0] is the command's base name, as DTrace gives it ("cat: invalid option -- 'D'").
  const command = opts.path ?? 'cpp';
  const r = spawnSync(command, argv, { argv0: basename(command), input, encoding: 'utf8', stdio: ['pipe', 'pipe', 'pipe'] });
  // cpp's messages (and -H's list) name the input as DTrace for Linux's cpp, which reads it by
  // the name /dev/stdin, does: "/dev/stdin:21:2: error: #else after #else".
  if (r.stderr) process.stderr.write(r.stderr.replace(/^<stdin>:/gm, '/dev/stdin:'));
  if (r.error || r.status !== 0) throw new CppError('Preprocessor failed to process input program');
  return r.stdout
    .replace(/^# \d+ "<(?:built-in|command-line)>"[^\n]*$/gm, '')
    .replace(/^# (\d+) "<stdin>"[^\n]*$/gm, '#line $1');
}
