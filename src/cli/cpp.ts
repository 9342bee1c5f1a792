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

/**
 * cpp runs with -undef: D is not GNU C, so none of the C compiler's own macros (__GNUC__, and with
 * it the __attribute__, __asm__ and __extension__ of system headers; nor `linux` and `unix`, which
 * would turn those words into 1) are defined. What system headers need to pick this machine's
 * definitions is defined instead: the operating system, the architecture and its data model.
 */
export function platformMacros(arch: string = process.arch): string[] {
  const os = ['-D__linux__', '-D__unix__', '-D__ELF__', '-D__CHAR_BIT__=8'];
  const lp64 = ['-D_LP64', '-D__LP64__'];
  switch (arch) {
    case 'x64': return [...os, ...lp64, '-D__x86_64__', '-D__x86_64', '-D__amd64__', '-D__amd64'];
    case 'arm64': return [...os, ...lp64, '-D__aarch64__'];
    case 'riscv64': return [...os, ...lp64, '-D__riscv', '-D__riscv_xlen=64'];
    case 'ppc64': return [...os, ...lp64, '-D__powerpc64__', '-D__PPC64__'];
    case 's390x': return [...os, ...lp64, '-D__s390x__', '-D__s390__'];
    default: return os;
  }
}

export class CppError extends Error {}

/** Preprocess one script's text; returns what the D compiler is to read. */
export function preprocess(text: string, opts: CppOptions): string {
  // An interpreter line (#!) means nothing to cpp: blank it, keeping the line count.
  const input = text.startsWith('#!') ? text.replace(/^[^\n]*/, '') : text;
  // -ffreestanding: no implicit <stdc-predef.h>, whose markers would only confuse line numbers.
  const argv = ['-xc', '-ffreestanding', '-undef', ...platformMacros(), ...PREDEFINED, ...opts.args, ...(opts.headers ? ['-H'] : []), '-'];
  const r = spawnSync(opts.path ?? 'cpp', argv, { input, encoding: 'utf8', stdio: ['pipe', 'pipe', 'inherit'] });
  if (r.error || r.status !== 0) throw new CppError('Preprocessor failed to process input program');
  return r.stdout
    .replace(/^# \d+ "<(?:built-in|command-line)>"[^\n]*$/gm, '')
    .replace(/^# (\d+) "<stdin>"[^\n]*$/gm, '#line $1');
}
