// DTrace options (-x name[=value] and #pragma D option): every option DTrace documents, the kind
// of value each takes, and the parsing and validation DTrace applies to it.
//
// Values are normalized into strings for the options map: sizes in bytes, rates and times in
// nanoseconds, booleans as "set" or "unset" (use isSet()).

import { readFileSync } from 'node:fs';
import { API_VERSION } from './version.js';
import { parseAttribute } from './abi/stability.js';

/** A rejected option. The message is dtrace(1)'s `failed to set -x NAME: REASON`. */
export class OptionError extends Error {
  constructor(readonly option: string, readonly reason: string) {
    super(`failed to set -x ${option}: ${reason}`);
  }
}

export const INVALID_NAME = 'Invalid option name';
export const INVALID_VALUE = 'Invalid value for specified option';

/**
 *  flag     a compiler flag: takes no value at all (errtags, zdefs, defaultargs, ...)
 *  runtime  a tracing option: no value (set), a number, or yes/no, on/off, set/unset, ...
 *  size     bytes with an optional k/m/g/t suffix
 *  rate     a frequency ("hz"), an interval with a time suffix, or a bare number of nanoseconds
 *  string   any non-empty text
 *  enum     one of a fixed set of words
 *  version  a D API version, major.minor[.micro], no newer than this compiler's
 *  iregs    the number of DIF integer registers: only all 8 are enough
 *  count    a positive number, a size's suffixes allowed (tregs)
 *  lockmem  a size, or "unlimited"
 */
type Kind = 'flag' | 'runtime' | 'size' | 'rate' | 'string' | 'enum' | 'version' | 'iregs' | 'count' | 'lockmem' | 'oformat' | 'attribute';

/** An option's kind, its words (enum), and DTrace's default where a stage reads it (as the map holds it). */
interface OptionSpec { kind: Kind; values?: string[]; caseless?: boolean; default?: string; min?: bigint }

const OPTIONS: Record<string, OptionSpec> = {
  // compiler options
  amin: { kind: 'attribute' },
  argref: { kind: 'flag' },
  core: { kind: 'flag' },
  cpp: { kind: 'flag' },
  cpphdrs: { kind: 'flag' },
  cpppath: { kind: 'string' },
  ctfpath: { kind: 'string' },
  ctypes: { kind: 'string' },
  debug: { kind: 'flag' },
  defaultargs: { kind: 'flag' },
  droptags: { kind: 'flag' },
  define: { kind: 'string' },
  dtypes: { kind: 'string' },
  empty: { kind: 'flag' },
  errtags: { kind: 'flag' },
  evaltime: { kind: 'enum', values: ['exec', 'preinit', 'postinit', 'main'], default: 'postinit' },
  incdir: { kind: 'string' },
  iregs: { kind: 'iregs' },
  kdefs: { kind: 'flag' },
  knodefs: { kind: 'flag' },
  late: { kind: 'enum', values: ['dynamic', 'static'] },
  lazyload: { kind: 'flag' },
  ldpath: { kind: 'string' },
  libdir: { kind: 'string' },
  linkmode: { kind: 'enum', values: ['kernel', 'primary', 'dynamic', 'static'] },
  linktype: { kind: 'enum', values: ['elf', 'dof'], caseless: true },
  modpath: { kind: 'string' },
  nolibs: { kind: 'flag' },
  pgmax: { kind: 'runtime' },
  pspec: { kind: 'flag' },
  stdc: { kind: 'enum', values: ['a', 'c', 's', 't'] },
  strip: { kind: 'flag' },
  syslibdir: { kind: 'string' },
  tree: { kind: 'runtime' },
  // DIF's tuple registers: how many keys a tuple may have (compiler/codegen.ts, checkTuple).
  tregs: { kind: 'count', default: '8' },
  udefs: { kind: 'flag' },
  undef: { kind: 'string' },
  unodefs: { kind: 'flag' },
  verbose: { kind: 'flag' },
  version: { kind: 'version' },
  zdefs: { kind: 'flag' },
  // tracing options, fixed when tracing starts
  aggsize: { kind: 'size', default: '4194304' },
  bpflog: { kind: 'runtime' },
  bpflogsize: { kind: 'size' },
  bufpolicy: { kind: 'enum', values: ['ring', 'fill', 'switch'], default: 'switch' },
  bufresize: { kind: 'enum', values: ['auto', 'manual'], default: 'auto' },
  bufsize: { kind: 'size', default: '4194304' },
  cleanrate: { kind: 'rate' },
  cpu: { kind: 'runtime' },
  destructive: { kind: 'runtime' },
  dynvarsize: { kind: 'size', default: '1048576' },
  // issue 18: the NATS server of a fleet of dtraced agents (nats://[user:pass@]host:port); also DTRACE_FLEET
  fleet: { kind: 'string' },
  grabanon: { kind: 'runtime' },
  jstackframes: { kind: 'runtime', default: '50' },
  jstackstrsize: { kind: 'size', default: '512' },
  lockmem: { kind: 'lockmem' },
  // libdtrace's heap reserved up front for its buffers' copies: taken, nothing to reserve here
  preallocate: { kind: 'size' },
  // the most frames any stack action records; DTrace for Linux starts it at the kernel's
  // perf_event_max_stack (127 by default), the most bpf_get_stack returns
  maxframes: { kind: 'runtime', default: '127' },
  nspec: { kind: 'runtime', default: '1' },
  pcapsize: { kind: 'size' },
  scratchsize: { kind: 'size' },
  specsize: { kind: 'size', default: '32768' },
  stackframes: { kind: 'runtime', default: '20' },
  statusrate: { kind: 'rate' },
  // A string needs room for one character and its NUL: DTrace refuses 0 and 1.
  strsize: { kind: 'size', default: '256', min: 2n },
  temporal: { kind: 'runtime' },
  ustackframes: { kind: 'runtime', default: '100' },
  // consumer options, which may change while tracing
  aggpercpu: { kind: 'flag' },
  aggrate: { kind: 'rate' },
  aggsortkey: { kind: 'runtime' },
  aggsortkeypos: { kind: 'runtime' },
  aggsortpos: { kind: 'runtime' },
  aggsortrev: { kind: 'runtime' },
  aggzoom: { kind: 'runtime' },
  flowindent: { kind: 'runtime' },
  noresolve: { kind: 'runtime' },
  // print(): how many bytes of the value to show (unset: all of it)
  printsize: { kind: 'size' },
  oformat: { kind: 'oformat' },
  quiet: { kind: 'runtime' },
  rawbytes: { kind: 'runtime' },
  stackindent: { kind: 'runtime' },
  switchrate: { kind: 'rate' },
};

/** Options that may be given more than once and accumulate (cpp arguments). */
export const CUMULATIVE = new Set(['define', 'undef', 'incdir']);

const SIZE_SUFFIX: Record<string, bigint> = { '': 1n, k: 1n << 10n, m: 1n << 20n, g: 1n << 30n, t: 1n << 40n };
const TIME_SUFFIX: Record<string, bigint> = {
  ns: 1n, nsec: 1n, us: 1000n, usec: 1000n, ms: 1000000n, msec: 1000000n, s: 1000000000n, sec: 1000000000n,
  m: 60000000000n, min: 60000000000n, h: 3600000000000n, hour: 3600000000000n, d: 86400000000000n, day: 86400000000000n,
};
const U64_MAX = (1n << 64n) - 1n;
const BOOL_WORDS: Record<string, boolean> = {
  yes: true, no: false, enable: true, disable: false, enabled: true, disabled: false,
  true: true, false: false, on: true, off: false, set: true, unset: false,
};

/** An unsigned integer as strtoull(3) with base 0 reads it: decimal, 0x hex or 0 octal. */
function parseInteger(text: string): bigint | null {
  if (/^0x[0-9a-f]+$/i.test(text) || /^[1-9]\d*$/.test(text) || text === '0') return BigInt(text);
  if (/^0[0-7]+$/.test(text)) return BigInt('0o' + text.slice(1));
  return null;
}

/** A size with DTrace's suffixes (k, m, g, t, either case), in bytes. */
export function parseSize(v: string): bigint | null {
  const m = /^(0x[0-9a-f]+|\d+)([kmgt]?)$/i.exec(v);
  if (!m) return null;
  const n = parseInteger(m[1]);
  if (n === null) return null;
  const bytes = n * SIZE_SUFFIX[m[2].toLowerCase()];
  return bytes > U64_MAX >> 1n ? null : bytes;
}

/**
 * A rate as an interval in nanoseconds: "hz" is per second, a time suffix an interval, and a bare
 * number nanoseconds (as DTrace's rate parser takes it: `switchrate=10` is 10ns, not 10hz).
 */
export function parseRateNs(v: string): bigint | null {
  const m = /^(\d+)([a-z]*)$/i.exec(v);
  if (!m) return null;
  const n = BigInt(m[1]);
  const unit = m[2].toLowerCase();
  if (unit === '') return n === 0n ? null : n;
  if (unit === 'hz') return n === 0n ? null : 1000000000n / n;
  const mult = TIME_SUFFIX[unit];
  return mult === undefined ? null : n * mult;
}

/** The D API version this compiler implements (dtrace -V: "Sun D 1.13"). */
const D_VERSION = API_VERSION.replace(/^.* /, '');
const DIF_REGS = 8;

/** A version major.minor[.micro] as one comparable number (DTrace's 8.12.12 bits), or null. */
function versionNumber(text: string): number | null {
  const m = /^(\d+)\.(\d+)(?:\.(\d+))?$/.exec(text);
  if (!m) return null;
  const [maj, min, mic] = [Number(m[1]), Number(m[2]), Number(m[3] ?? 0)];
  if (maj > 0xff || min > 0xfff || mic > 0xfff) return null;
  return maj * 2 ** 24 + min * 2 ** 12 + mic;
}

/**
 * Options DTrace documents that mean something this dtrace cannot do: refused with the reason
 * (after their value is checked), rather than accepted and ignored.
 */
const REFUSED: Record<string, (value: string) => string | null> = {
  ctypes: () => 'no CTF is written on Linux: C types come from the kernel\'s BTF',
  dtypes: () => 'no CTF is written on Linux: D types come from the kernel\'s BTF',
  grabanon: () => 'anonymous tracing is not available on Linux: it needs the Solaris DTrace driver, which keeps enablings from boot on',
  knodefs: () => 'unresolved kernel symbols are always an error here',
  late: (v) => (v === 'static' ? null : 'translators are always applied statically here'),
  linktype: (v) => (v === 'elf' ? null : 'dtrace -G writes ELF objects only'),
  tree: () => 'this compiler does not dump its parse trees',
};

/**
 * Validate one option as dtrace_setopt() does; value is null when none was given (`-x name`).
 * Returns [name, normalized value].
 */
export function parseOptionValue(name: string, value: string | null): [string, string] {
  const parsed = validateOption(name, value);
  if (name === 'cpu') return [name, cpuOption(value, parsed[1])];
  // No stack holds more frames than the kernel's perf_event_max_stack gives bpf_get_stack.
  if (STACK_FRAME_OPTIONS.has(name) && Number(parsed[1]) > perfMaxStack()) throw new OptionError(name, INVALID_VALUE);
  const why = REFUSED[name]?.(parsed[1]);
  if (why) throw new OptionError(name, why);
  return parsed;
}

/** The options that count a stack's frames. */
const STACK_FRAME_OPTIONS = new Set(['maxframes', 'stackframes', 'ustackframes', 'jstackframes']);

/** The kernel's limit on a stack's frames (/proc/sys/kernel/perf_event_max_stack), else its default. */
function perfMaxStack(): number {
  try {
    return Number(readFileSync('/proc/sys/kernel/perf_event_max_stack', 'utf8').trim());
  } catch {
    return Number(OPTIONS.maxframes.default);
  }
}

/**
 * -x cpu: a runtime option, so no value is 0 and yes/on/... are 1, as DTrace reads it; the CPU
 * must be online to be traced. "unset" (cpu=, cpu=no) traces every CPU.
 */
function cpuOption(value: string | null, parsed: string): string {
  if (parsed === 'unset') return parsed;
  const cpu = value === null ? '0' : parsed === 'set' ? '1' : parsed;
  if (!onlineCpus().includes(Number(cpu))) throw new OptionError('cpu', INVALID_VALUE);
  return cpu;
}

/** The online CPUs, from /sys/devices/system/cpu/online ("0-3,5"). */
function onlineCpus(): number[] {
  const out: number[] = [];
  for (const part of readFileSync('/sys/devices/system/cpu/online', 'utf8').trim().split(',')) {
    const [lo, hi] = part.split('-').map(Number);
    for (let c = lo; c <= (hi ?? lo); c++) out.push(c);
  }
  return out;
}

/** DTrace's default for an option, as the options map would hold it. */
export function optionDefault(name: string): string | undefined {
  return OPTIONS[name]?.default;
}

/** An option's value: the one set (by -x, a pragma or setopt()), else DTrace's default. */
export function optionValue(options: ReadonlyMap<string, string>, name: string): string | undefined {
  return options.get(name) ?? optionDefault(name);
}

/** A numeric option's value (a size, a count), set or default. */
export function numericOption(options: ReadonlyMap<string, string>, name: string): number {
  const v = optionValue(options, name);
  if (v === undefined) throw new Error(`option ${name} has no default`);
  return Number(v);
}

/** The CPU -x cpu restricts tracing to, or undefined for every CPU. */
export function tracedCpu(options: ReadonlyMap<string, string>): number | undefined {
  const v = options.get('cpu');
  return v === undefined || v === 'unset' ? undefined : Number(v);
}

function validateOption(name: string, value: string | null): [string, string] {
  const opt = OPTIONS[name];
  if (!opt) throw new OptionError(name, INVALID_NAME);
  const bad = () => new OptionError(name, INVALID_VALUE);
  switch (opt.kind) {
    case 'flag':
      if (value !== null && value !== '') throw bad();
      return [name, 'set'];
    case 'runtime': {
      if (value === null) return [name, 'set'];
      if (value === '') return [name, 'unset'];
      const word = BOOL_WORDS[value.toLowerCase()];
      if (word !== undefined) return [name, word ? 'set' : 'unset'];
      const n = parseInteger(value);
      if (n === null || n > U64_MAX) throw bad();
      return [name, n.toString()];
    }
    case 'size': {
      const s = value === null ? null : parseSize(value);
      if (s === null || (opt.min !== undefined && s < opt.min)) throw bad();
      return [name, s.toString()];
    }
    case 'rate': {
      const t = value === null ? null : parseRateNs(value);
      if (t === null) throw bad();
      return [name, t.toString()];
    }
    case 'version': {
      if (value === null) throw bad();
      const v = versionNumber(value);
      if (v === null) throw new OptionError(name, 'Version is not properly formatted or is too large');
      if (v > versionNumber(D_VERSION)!) throw new OptionError(name, 'Requested version is not supported by compiler');
      return [name, value];
    }
    case 'iregs': {
      // DIF has 8 integer registers and the code generator needs them all.
      const n = value === null ? NaN : Number.parseInt(value, 10);
      if (!(n > 0 && n <= DIF_REGS)) throw bad();
      if (n < DIF_REGS) throw new OptionError(name, 'Insufficient registers to generate code');
      return [name, String(n)];
    }
    case 'count': {
      // Decimal only, as DTrace reads it (0x10 is refused, 1k is 1024).
      const s = value === null || !/^\d+[kmgt]?$/i.test(value) ? null : parseSize(value);
      if (s === null || s <= 0n) throw bad();
      return [name, s.toString()];
    }
    case 'lockmem': {
      if (value === 'unlimited') return [name, value];
      const s = value === null ? null : parseSize(value);
      if (s === null) throw bad();
      return [name, s.toString()];
    }
    case 'enum': {
      const v = value !== null && opt.caseless ? value.toLowerCase() : value;
      if (v === null || !opt.values!.includes(v)) throw bad();
      return [name, v];
    }
    case 'attribute':
      // Stability attributes as dtrace_str2attr() reads them ("Evolving/Evolving/Common").
      if (value === null || parseAttribute(value) === null) throw bad();
      return [name, value];
    case 'oformat': {
      // libxo's style, then its modifiers: text (or none) and json[,pretty] are what this dtrace writes.
      const [style, ...mods] = (value ?? '').split(',');
      if (style === 'xml' || style === 'html') throw new OptionError(name, `${style} output is not supported (supported: json, text)`);
      if (!['json', 'text', 'none'].includes(style) || mods.some((m) => m !== 'pretty')) throw bad();
      return [name, value!];
    }
    default:
      if (value === null || value === '') throw bad();
      return [name, value];
  }
}

/** What a #pragma D option fails with for an option only the command line may set. */
export const BAD_OPTION_CONTEXT = 'Option cannot be used from within a D program';

/** The preprocessor's and the loader's paths: set before a program is read, so never by its pragmas. */
const COMMAND_LINE_ONLY = new Set(['cpphdrs', 'cpppath', 'ctfpath', 'define', 'incdir', 'ldpath', 'modpath', 'stdc', 'undef']);

export function isCommandLineOnly(name: string): boolean {
  return COMMAND_LINE_ONLY.has(name);
}

/** What dtrace_setopt() fails an option with while tracing runs, unless the option is dynamic. */
export const TRACING_ACTIVE = 'Operation illegal when tracing is active';

/** DTrace's dynamic run-time options: the ones setopt() may change while tracing runs. */
const DYNAMIC = new Set([
  'aggrate', 'aggsortkey', 'aggsortkeypos', 'aggsortpos', 'aggsortrev', 'aggzoom', 'flowindent', 'printsize',
  'quiet', 'rawbytes', 'stackindent', 'switchrate',
]);

/** libdtrace's compile-time options (aggpercpu is one there): accepted while tracing, to no effect. */
const COMPILE_TIME = new Set([
  'aggpercpu', 'amin', 'argref', 'core', 'cpp', 'cpphdrs', 'cpppath', 'ctfpath', 'ctypes', 'debug', 'defaultargs',
  'define', 'droptags', 'dtypes', 'empty', 'errtags', 'evaltime', 'incdir', 'iregs', 'kdefs', 'knodefs', 'late', 'lazyload', 'ldpath',
  'libdir', 'linkmode', 'linktype', 'modpath', 'nolibs', 'pgmax', 'pspec', 'stdc', 'strip', 'syslibdir', 'tree',
  'tregs', 'udefs', 'undef', 'unodefs', 'verbose', 'version', 'zdefs',
]);

/**
 * setopt() while tracing, as dtrace_setopt() handles it then: a dynamic option takes the value
 * (returned normalized, for the options map); a compile-time option is checked but has nothing
 * left to change (null); any other option is refused. Failures throw OptionError.
 */
export function setOptionWhileTracing(name: string, value: string): string | null {
  const opt = OPTIONS[name];
  if (!opt) throw new OptionError(name, INVALID_NAME);
  if (DYNAMIC.has(name)) return validateOption(name, value)[1];
  if (!COMPILE_TIME.has(name)) throw new OptionError(name, TRACING_ACTIVE);
  // libdtrace's compiler flags refuse any value, and setopt() always passes one.
  if (opt.kind === 'flag') throw new OptionError(name, INVALID_VALUE);
  parseOptionValue(name, value);
  return null;
}

export function isKnownOption(name: string): boolean {
  return name in OPTIONS;
}

/** Every option name, sorted (for the manual and tests). */
export function optionNames(): string[] {
  return Object.keys(OPTIONS).sort();
}

/** Is an option on? Present and not "unset" (as in DTrace, any number, even 0, sets it). */
export function isSet(options: Map<string, string>, name: string): boolean {
  const v = options.get(name);
  return v !== undefined && v !== 'unset';
}
