// The subroutines of the reference DIF machine (OpenDTrace specification, chapter 10) that are pure
// computation over the machine's memory: string functions, byte order, address formatting, scratch
// allocation and copies from the traced process. Arguments come from the tuple stack; results that
// are strings are written to scratch, `strsize` bytes per call as DTrace reserves them.
//
// Subroutines that need kernel state the model does not have (mutexes, process
// trees, device numbers, files) throw an Error naming the subroutine.

import * as D from './constants.js';
import { type DifMachine, FaultSignal } from './machine.js';

const U64 = (v: bigint): bigint => BigInt.asUintN(64, v);
const S64 = (v: bigint): bigint => BigInt.asIntN(64, v);

/** Address families as the Linux kernel numbers them (inet_ntop's first argument). */
export const AF_INET = 2;
export const AF_INET6 = 10;

type Subr = (m: DifMachine, args: bigint[]) => bigint;

const arg = (args: bigint[], i: number): bigint => args[i] ?? 0n;

/** A string argument's bytes (up to strsize or its NUL), after the load check. */
function str(m: DifMachine, addr: bigint): Uint8Array {
  m.checkLoad(addr, 1n);
  return m.readStringBytes(addr, m.strsize);
}

/** Write a string result to scratch, reserving `reserve` bytes (DTrace reserves strsize). */
function result(m: DifMachine, s: Uint8Array | string, reserve = m.strsize): bigint {
  const bytes = typeof s === 'string' ? Buffer.from(s, 'latin1') : s;
  return m.scratchString(bytes, reserve);
}

function bswap(v: bigint, bytes: number): bigint {
  let out = 0n;
  for (let i = 0; i < bytes; i++) out = (out << 8n) | ((v >> BigInt(8 * i)) & 0xffn);
  return out;
}

const latin1 = (b: Uint8Array): string => Buffer.from(b).toString('latin1');

// index(), rindex() and strstr() share DTrace's search, including its treatment of positions.
function search(m: DifMachine, subr: number, args: bigint[]): bigint {
  const s = str(m, arg(args, 0));
  const sub = str(m, arg(args, 1));
  const len = s.length, sublen = sub.length;
  const notfound = subr === D.DIF_SUBR_STRSTR ? 0n : U64(-1n);
  if (len < sublen) return notfound;
  const matchAt = (p: number): boolean => {
    for (let k = 0; k < sublen; k++) if (s[p + k] !== sub[k]) return false;
    return true;
  };
  if (subr === D.DIF_SUBR_STRSTR) {
    for (let p = 0; p < len; p++) if (matchAt(p)) return arg(args, 0) + BigInt(p);
    return 0n;
  }
  let start = subr === D.DIF_SUBR_RINDEX ? len : 0;
  if (args.length === 3) {
    let pos = S64(arg(args, 2));
    if (subr === D.DIF_SUBR_RINDEX) {
      if (pos < 0n) return sublen === 0 ? 0n : notfound;
      if (pos > BigInt(len)) pos = BigInt(len);
    } else {
      if (pos < 0n) pos = 0n;
      if (pos >= BigInt(len)) return sublen === 0 ? BigInt(len) : notfound;
    }
    start = Number(pos);
  }
  if (subr === D.DIF_SUBR_INDEX) {
    for (let p = start; p < len; p++) if (matchAt(p)) return BigInt(p);
  } else {
    // rindex looks from the position down to the first character; a match may not run past the
    // string's end.
    for (let p = start; p >= 0; p--) if (p + sublen <= len && matchAt(p)) return BigInt(p);
  }
  return notfound;
}

function substr(m: DifMachine, args: bigint[]): bigint {
  const s = str(m, arg(args, 0));
  const size = BigInt(m.strsize);
  m.scratchFor(m.strsize);
  const len = BigInt(s.length);
  let index = S64(arg(args, 1));
  let remaining = args.length <= 2 ? size : S64(arg(args, 2));
  if (index < 0n) {
    index += len;
    if (index < 0n && index + remaining > 0n) {
      remaining += index;
      index = 0n;
    }
  }
  if (index >= len || index < 0n) remaining = 0n;
  else if (remaining < 0n) remaining += len - index;
  else if (index + remaining > size) remaining = size - index;
  const end = remaining > 0n ? Number(index + remaining) : Number(index);
  return result(m, s.subarray(Number(index < 0n ? 0n : index), Math.min(end, s.length)));
}

function strjoin(m: DifMachine, args: bigint[]): bigint {
  const a = str(m, arg(args, 0)), b = str(m, arg(args, 1));
  m.scratchFor(m.strsize);
  // The joined string and its NUL must fit in strsize bytes.
  if (a.length + b.length + 1 > m.strsize) throw new FaultSignal(D.DTRACEFLT_NOSCRATCH);
  const joined = new Uint8Array(a.length + b.length);
  joined.set(a);
  joined.set(b, a.length);
  return result(m, joined, joined.length + 1);
}

function lltostr(m: DifMachine, args: bigint[]): bigint {
  const v = S64(arg(args, 0));
  let base = 10;
  if (args.length > 1) {
    const b = arg(args, 1);
    if (b <= 1n || b > 36n) throw new FaultSignal(D.DTRACEFLT_ILLOP);
    base = Number(b);
  }
  m.scratchFor(65);
  // Base 10 is signed; other bases show the 64-bit pattern, with "0" and "0x" prefixes for 8 and 16.
  let text = v === 0n ? '' : base === 10 ? (v < 0n ? -v : v).toString(10) : U64(v).toString(base);
  if (v === 0n && base === 16) text = '0' + text;
  if (base === 16) text = 'x' + text;
  if (v === 0n || base === 8 || base === 16) text = '0' + text;
  if (v < 0n && base === 10) text = '-' + text;
  return result(m, text, 65);
}

function strtoll(m: DifMachine, args: bigint[]): bigint {
  let base = 10;
  if (args.length > 1) {
    const b = arg(args, 1);
    if (b <= 1n || b > 36n) throw new FaultSignal(D.DTRACEFLT_ILLOP);
    base = Number(b);
  }
  const s = str(m, arg(args, 0));
  let p = 0;
  while (s[p] === 0x20 || s[p] === 0x09) p++;
  let neg = false;
  if (s[p] === 0x2d || s[p] === 0x2b) neg = s[p++] === 0x2d;
  const digit = (c: number | undefined): number => {
    if (c === undefined) return 99;
    if (c >= 0x30 && c <= 0x39) return c - 0x30;
    if (c >= 0x61 && c <= 0x7a) return c - 0x61 + 10;
    if (c >= 0x41 && c <= 0x5a) return c - 0x41 + 10;
    return 99;
  };
  if (base === 16 && s[p] === 0x30 && (s[p + 1] === 0x78 || s[p + 1] === 0x58) && digit(s[p + 2]) < 16) p += 2;
  let v = 0n;
  for (; p < s.length && digit(s[p]) < base; p++) v = U64(v * BigInt(base) + BigInt(digit(s[p])));
  return U64(neg ? -v : v);
}

function caseConvert(m: DifMachine, args: bigint[], upper: boolean): bigint {
  const s = str(m, arg(args, 0));
  m.scratchFor(m.strsize);
  const out = Uint8Array.from(s.subarray(0, m.strsize - 1), (c) => {
    if (upper && c >= 0x61 && c <= 0x7a) return c - 0x20;
    if (!upper && c >= 0x41 && c <= 0x5a) return c + 0x20;
    return c;
  });
  return result(m, out);
}

function strchr(m: DifMachine, args: bigint[], last: boolean): bigint {
  const addr = arg(args, 0);
  const target = Number(arg(args, 1) & 0xffn);
  m.checkLoad(addr, 1n);
  let found = 0n;
  // The terminating NUL is part of the string: strchr(s, 0) finds it.
  for (let i = 0; i < m.strsize; i++) {
    const c = m.byte(addr + BigInt(i));
    if (c === target) {
      found = addr + BigInt(i);
      if (!last) break;
    }
    if (c === 0) break;
  }
  return found;
}

function strtok(m: DifMachine, args: bigint[]): bigint {
  let addr = arg(args, 0);
  const delims = str(m, arg(args, 1));
  m.scratchFor(m.strsize);
  if (addr === 0n) {
    addr = m.strtokNext;
    if (addr === 0n) return 0n;
  } else {
    m.checkLoad(addr, 1n);
  }
  const isDelim = (c: number): boolean => delims.includes(c);
  const limit = addr + BigInt(m.strsize);
  let c = 0;
  for (; addr < limit; addr++) {
    c = m.byte(addr);
    if (c === 0 || !isDelim(c)) break;
  }
  if (c === 0) {
    m.strtokNext = 0n;
    return 0n;
  }
  const token: number[] = [];
  for (; addr < limit; addr++) {
    c = m.byte(addr);
    if (c === 0 || isDelim(c)) break;
    token.push(c);
  }
  // The next call resumes at the delimiter (or the NUL) and skips it there.
  m.strtokNext = addr;
  return result(m, Uint8Array.from(token));
}

/** basename() and dirname() with POSIX results; "" is ".". */
function pathPart(m: DifMachine, args: bigint[], dir: boolean): bigint {
  let s = latin1(str(m, arg(args, 0)));
  m.scratchFor(m.strsize);
  if (s === '') s = '.';
  const trimmed = s.replace(/\/+$/, '');
  if (trimmed === '') return result(m, '/'); // only slashes
  const slash = trimmed.lastIndexOf('/');
  if (!dir) return result(m, trimmed.slice(slash + 1));
  if (slash < 0) return result(m, '.');
  const parent = trimmed.slice(0, slash).replace(/\/+$/, '');
  return result(m, parent === '' ? '/' : parent);
}

/** cleanpath(): drop "//" and "/./", resolve "/../" lexically; ".." stays at the root. */
function cleanpath(m: DifMachine, args: bigint[]): bigint {
  const s = latin1(str(m, arg(args, 0)));
  m.scratchFor(m.strsize);
  if (s === '') return result(m, '');
  const absolute = s.startsWith('/');
  const parts: string[] = [];
  for (const p of s.split('/')) {
    if (p === '' || p === '.') continue;
    if (p === '..') {
      if (parts.length && parts[parts.length - 1] !== '..') parts.pop();
      else if (!absolute) parts.push('..');
      continue;
    }
    parts.push(p);
  }
  const out = (absolute ? '/' : '') + parts.join('/');
  return result(m, out === '' ? '.' : out);
}

function ipv4(b: Uint8Array): string {
  return `${b[0]}.${b[1]}.${b[2]}.${b[3]}`;
}

/** IPv6 text as DTrace writes it: v4-mapped and v4-compatible as dotted quads, "::" for the longest run of two or more zero groups. */
function ipv6(b: Uint8Array): string {
  const zero10 = b.subarray(0, 10).every((x) => x === 0);
  const mapped = zero10 && b[10] === 0xff && b[11] === 0xff;
  const v4 = ((b[12]! << 24) | (b[13]! << 16) | (b[14]! << 8) | b[15]!) >>> 0;
  const compat = zero10 && b[10] === 0 && b[11] === 0 && v4 > 1; // but not :: or ::1
  if (mapped || compat) return ipv4(b.subarray(12));
  const groups = Array.from({ length: 8 }, (_, i) => (b[2 * i]! << 8) | b[2 * i + 1]!);
  let best = -1, bestLen = 1;
  for (let i = 0; i < 8; ) {
    if (groups[i] !== 0) { i++; continue; }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLen) { best = i; bestLen = j - i; }
    i = j;
  }
  const hex = (g: number[]): string => g.map((x) => x.toString(16)).join(':');
  if (best < 0) return hex(groups);
  return `${hex(groups.slice(0, best))}::${hex(groups.slice(best + bestLen))}`;
}

const INET_ADDRSTRLEN = 16;
const INET6_ADDRSTRLEN = 46;

function inet(m: DifMachine, af: number, addr: bigint): bigint {
  if (af === AF_INET) {
    m.scratchFor(INET_ADDRSTRLEN);
    m.checkLoad(addr, 4n);
    return result(m, ipv4(m.readBytes(addr, 4)), INET_ADDRSTRLEN);
  }
  if (af === AF_INET6) {
    m.scratchFor(INET6_ADDRSTRLEN);
    m.checkLoad(addr, 16n);
    return result(m, ipv6(m.readBytes(addr, 16)), INET6_ADDRSTRLEN);
  }
  throw new FaultSignal(D.DTRACEFLT_ILLOP);
}

/** Copy from the traced process; BADADDR at the first byte that is not mapped there. */
function copyinBytes(m: DifMachine, uaddr: bigint, size: number, stopAtNul: boolean): Uint8Array {
  const out: number[] = [];
  for (let i = 0; i < size; i++) {
    const c = m.userByte(uaddr + BigInt(i));
    out.push(c);
    if (stopAtNul && c === 0) break;
  }
  return Uint8Array.from(out);
}

function copyin(m: DifMachine, args: bigint[]): bigint {
  const size = arg(args, 1);
  if (size > BigInt(m.scratchSize)) throw new FaultSignal(D.DTRACEFLT_NOSCRATCH);
  const dest = m.allocScratch(size, 8);
  const bytes = copyinBytes(m, arg(args, 0), Number(size), false);
  for (let i = 0; i < bytes.length; i++) m.writeByte(dest + BigInt(i), bytes[i]!);
  return dest;
}

function copyinstr(m: DifMachine, args: bigint[]): bigint {
  let size = m.strsize;
  if (args.length > 1 && arg(args, 1) < BigInt(size)) size = Number(arg(args, 1)) + 1;
  m.scratchFor(size);
  const bytes = copyinBytes(m, arg(args, 0), size - 1, true);
  return result(m, bytes.includes(0) ? bytes.subarray(0, bytes.indexOf(0)) : bytes, size);
}

function copyinto(m: DifMachine, args: bigint[]): bigint {
  const [uaddr, size, dest] = [arg(args, 0), arg(args, 1), arg(args, 2)];
  if (!m.canStore(dest, size)) throw new FaultSignal(D.DTRACEFLT_BADADDR, dest);
  const bytes = copyinBytes(m, uaddr, Number(size), false);
  for (let i = 0; i < bytes.length; i++) m.writeByte(dest + BigInt(i), bytes[i]!);
  return 0n;
}

function bcopy(m: DifMachine, args: bigint[]): bigint {
  const [src, dest, size] = [arg(args, 0), arg(args, 1), arg(args, 2)];
  if (!m.canStore(dest, size)) throw new FaultSignal(D.DTRACEFLT_BADADDR, dest);
  m.checkLoad(src, size);
  m.copy(src, dest, Number(size));
  return 0n;
}

const SUBROUTINES = new Map<number, Subr>([
  [D.DIF_SUBR_RAND, (m) => U64(m.rand())],
  [D.DIF_SUBR_SPECULATION, (m) => m.claimSpeculation()],
  [D.DIF_SUBR_STRLEN, (m, a) => BigInt(str(m, arg(a, 0)).length)],
  [D.DIF_SUBR_STRJOIN, strjoin],
  [D.DIF_SUBR_SUBSTR, substr],
  [D.DIF_SUBR_INDEX, (m, a) => search(m, D.DIF_SUBR_INDEX, a)],
  [D.DIF_SUBR_RINDEX, (m, a) => search(m, D.DIF_SUBR_RINDEX, a)],
  [D.DIF_SUBR_STRSTR, (m, a) => search(m, D.DIF_SUBR_STRSTR, a)],
  [D.DIF_SUBR_STRCHR, (m, a) => strchr(m, a, false)],
  [D.DIF_SUBR_STRRCHR, (m, a) => strchr(m, a, true)],
  [D.DIF_SUBR_STRTOK, strtok],
  [D.DIF_SUBR_TOUPPER, (m, a) => caseConvert(m, a, true)],
  [D.DIF_SUBR_TOLOWER, (m, a) => caseConvert(m, a, false)],
  [D.DIF_SUBR_BASENAME, (m, a) => pathPart(m, a, false)],
  [D.DIF_SUBR_DIRNAME, (m, a) => pathPart(m, a, true)],
  [D.DIF_SUBR_CLEANPATH, cleanpath],
  [D.DIF_SUBR_LLTOSTR, lltostr],
  [D.DIF_SUBR_STRTOLL, strtoll],
  // x86 is little-endian: host to network order swaps the bytes.
  [D.DIF_SUBR_HTONS, (_m, a) => bswap(arg(a, 0), 2)],
  [D.DIF_SUBR_NTOHS, (_m, a) => bswap(arg(a, 0), 2)],
  [D.DIF_SUBR_HTONL, (_m, a) => bswap(arg(a, 0), 4)],
  [D.DIF_SUBR_NTOHL, (_m, a) => bswap(arg(a, 0), 4)],
  [D.DIF_SUBR_HTONLL, (_m, a) => bswap(arg(a, 0), 8)],
  [D.DIF_SUBR_NTOHLL, (_m, a) => bswap(arg(a, 0), 8)],
  [D.DIF_SUBR_INET_NTOA, (m, a) => inet(m, AF_INET, arg(a, 0))],
  [D.DIF_SUBR_INET_NTOA6, (m, a) => inet(m, AF_INET6, arg(a, 0))],
  [D.DIF_SUBR_INET_NTOP, (m, a) => inet(m, Number(S64(arg(a, 0))), arg(a, 1))],
  [D.DIF_SUBR_ALLOCA, (m, a) => m.allocScratch(arg(a, 0), 8)],
  [D.DIF_SUBR_BCOPY, bcopy],
  [D.DIF_SUBR_COPYIN, copyin],
  [D.DIF_SUBR_COPYINSTR, copyinstr],
  [D.DIF_SUBR_COPYINTO, copyinto],
  // progenyof(pid): is the current process pid or one of its descendants?
  [D.DIF_SUBR_PROGENYOF, (m, a) => {
    const pid = arg(a, 0);
    return m.ctx.pid === pid || (m.ctx.ancestors ?? []).includes(pid) ? 1n : 0n;
  }],
]);

/** Names of the subroutines the reference machine implements. */
export const MACHINE_SUBROUTINES: readonly string[] = [...SUBROUTINES.keys()].map((n) => D.subrName(n));

/** Run subroutine `subr` on the arguments taken from the tuple stack. */
export function callSubroutine(m: DifMachine, subr: number, args: bigint[]): bigint {
  const f = SUBROUTINES.get(subr);
  if (!f) throw new Error(`the reference DIF machine does not implement subroutine ${D.subrName(subr)} (${subr})`);
  return U64(f(m, args));
}
