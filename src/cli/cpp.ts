// -C: scripts go through the C preprocessor before the D compiler sees them, as in DTrace.
//
// The script is fed to cpp on its standard input with -D/-U/-I (and -H) in command-line order.
// cpp's line markers are kept so that compile errors still name the script's own lines: markers
// for the script itself become plain `#line N` (DTrace reports "line N:" for a script), markers
// for included files keep their file name. `#pragma D ...` lines pass through cpp unchanged.

import { spawnSync } from 'node:child_process';

export interface CppOptions {
  /** The cpp program (-x cpppath); "cpp" on PATH by default. */
  path?: string;
  /** -D/-U/-I arguments in order, already in cpp's form ("-DX=1", "-UY", "-Idir"). */
  args: string[];
  /** -H: let cpp list the files it includes, on stderr. */
  headers: boolean;
}

/** Macros DTrace defines for every preprocessed D program (the D compiler and the platform). */
const PREDEFINED = ['-D__SUNW_D=1', '-D__SUNW_D_64', '-D__linux', '-D__unix'];

export class CppError extends Error {}

/** Preprocess one script's text; returns what the D compiler is to read. */
export function preprocess(text: string, opts: CppOptions): string {
  // An interpreter line (#!) means nothing to cpp: blank it, keeping the line count.
  const input = text.startsWith('#!') ? text.replace(/^[^\n]*/, '') : text;
  // -ffreestanding: no implicit <stdc-predef.h>, whose markers would only confuse line numbers.
  const argv = ['-xc', '-ffreestanding', ...PREDEFINED, ...opts.args, ...(opts.headers ? ['-H'] : []), '-'];
  const r = spawnSync(opts.path ?? 'cpp', argv, { input, encoding: 'utf8', stdio: ['pipe', 'pipe', 'inherit'] });
  if (r.error || r.status !== 0) throw new CppError('Preprocessor failed to process input program');
  return r.stdout
    .replace(/^# \d+ "<(?:built-in|command-line)>"[^\n]*$/gm, '')
    .replace(/^# (\d+) "<stdin>"[^\n]*$/gm, '#line $1');
}
