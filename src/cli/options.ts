// DTrace options (-x name=value and #pragma D option): names, value kinds and their parsing.

export class OptionError extends Error {}

type Kind = 'size' | 'time' | 'rate' | 'bool' | 'int' | 'string' | 'enum';

const OPTIONS: Record<string, { kind: Kind; values?: string[] }> = {
  aggrate: { kind: 'rate' },
  aggsize: { kind: 'size' },
  aggsortkey: { kind: 'bool' },
  aggsortkeypos: { kind: 'int' },
  aggsortpos: { kind: 'int' },
  aggsortrev: { kind: 'bool' },
  aggpercpu: { kind: 'bool' },
  bufpolicy: { kind: 'enum', values: ['ring', 'fill', 'switch'] },
  bufresize: { kind: 'enum', values: ['auto', 'manual'] },
  bufsize: { kind: 'size' },
  cleanrate: { kind: 'rate' },
  cpu: { kind: 'int' },
  cpp: { kind: 'bool' },
  cpppath: { kind: 'string' },
  debug: { kind: 'bool' },
  defaultargs: { kind: 'bool' },
  destructive: { kind: 'bool' },
  dynvarsize: { kind: 'size' },
  errtags: { kind: 'bool' },
  evaltime: { kind: 'enum', values: ['exec', 'preinit', 'postinit', 'main'] },
  flowindent: { kind: 'bool' },
  grabanon: { kind: 'bool' },
  jstackframes: { kind: 'int' },
  jstackstrsize: { kind: 'size' },
  lazyload: { kind: 'bool' },
  ldpath: { kind: 'string' },
  libdir: { kind: 'string' },
  linkmode: { kind: 'enum', values: ['kernel', 'static', 'dynamic'] },
  linktype: { kind: 'enum', values: ['elf', 'dof'] },
  nolibs: { kind: 'bool' },
  nspec: { kind: 'int' },
  oformat: { kind: 'string' },
  pgmax: { kind: 'int' },
  quiet: { kind: 'bool' },
  rawbytes: { kind: 'bool' },
  specsize: { kind: 'size' },
  stackframes: { kind: 'int' },
  stackindent: { kind: 'int' },
  statusrate: { kind: 'rate' },
  strsize: { kind: 'size' },
  switchrate: { kind: 'rate' },
  temporal: { kind: 'bool' },
  ustackframes: { kind: 'int' },
  verbose: { kind: 'bool' },
  version: { kind: 'string' },
  zdefs: { kind: 'bool' },
};

const SIZE_SUFFIX: Record<string, bigint> = { '': 1n, k: 1n << 10n, m: 1n << 20n, g: 1n << 30n, t: 1n << 40n };
const TIME_SUFFIX: Record<string, bigint> = {
  ns: 1n, nsec: 1n, us: 1000n, usec: 1000n, ms: 1000000n, msec: 1000000n, s: 1000000000n, sec: 1000000000n,
  m: 60000000000n, min: 60000000000n, h: 3600000000000n, hour: 3600000000000n, d: 86400000000000n, day: 86400000000000n,
};

/** A size with DTrace's suffixes (k, m, g, t), in bytes. */
export function parseSize(v: string): bigint | null {
  const m = /^(\d+)([kmgt]?)$/i.exec(v.trim());
  return m ? BigInt(m[1]) * SIZE_SUFFIX[m[2].toLowerCase()] : null;
}

/** A rate or interval: a bare number is per second (hz); a time suffix gives an interval. */
export function parseRateNs(v: string): bigint | null {
  const m = /^(\d+)([a-z]*)$/i.exec(v.trim());
  if (!m) return null;
  const n = BigInt(m[1]);
  const unit = m[2].toLowerCase();
  if (unit === '' || unit === 'hz') return n === 0n ? null : 1000000000n / n;
  const mult = TIME_SUFFIX[unit];
  return mult === undefined ? null : n * mult;
}

/** Validate one option; returns [name, normalized value]. */
export function parseOptionValue(name: string, value: string): [string, string] {
  const opt = OPTIONS[name];
  const shown = value === '' ? name : `${name}=${value}`;
  if (!opt) throw new OptionError(`failed to set -x ${shown}: Invalid option name`);
  const bad = () => new OptionError(`failed to set -x ${shown}: Invalid value for specified option`);
  switch (opt.kind) {
    case 'bool':
      if (value !== '' && value !== 'set' && value !== 'unset') throw bad();
      return [name, value === '' ? 'set' : value];
    case 'size': {
      const s = parseSize(value);
      if (s === null || s === 0n) throw bad();
      return [name, s.toString()];
    }
    case 'rate':
    case 'time': {
      const t = parseRateNs(value);
      if (t === null) throw bad();
      return [name, t.toString()];
    }
    case 'int':
      if (!/^-?\d+$/.test(value)) throw bad();
      return [name, value];
    case 'enum':
      if (!opt.values!.includes(value)) throw bad();
      return [name, value];
    default:
      if (value === '') throw bad();
      return [name, value];
  }
}

export function isKnownOption(name: string): boolean {
  return name in OPTIONS;
}
