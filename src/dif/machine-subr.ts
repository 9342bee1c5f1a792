// The subroutines of the reference DIF machine (OpenDTrace specification, chapter 10) that are pure
// computation over the machine's memory: string functions, byte order, address formatting, scratch
// allocation and copies from the traced process. Arguments come from the tuple stack; results that
// are strings are written to scratch, `strsize` bytes per call as DTrace reserves them.
//
// Subroutines that need kernel state the model does not have (mutexes, process
// trees, device numbers, files) throw an Error naming the subroutine.

import * as D from './constants.js';
import { type DifMachine, FaultSignal } from './machine.js';
import { subrName } from './subroutines.js';

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

/**
 * IPv6 text as DTrace's kernel writes it (RFC 1884, lower-case hex without leading zeros). The
 * zero run that becomes "::" is found as DTrace finds it, byte by byte, with its quirks: one zero
 * group is enough, a later run must be longer to win, a trailing single zero group stays "0", and
 * a run followed by a group whose high byte is zero counts one byte more. v4-mapped and
 * v4-compatible addresses end in a dotted quad: all that inet_ntoa6() returns, the tail of
 * inet_ntop()'s text.
 */
export function ipv6(b: Uint8Array, ntoa6: boolean): string {
  let firstzero = -1, tryzero = -1, numzero = 1;
  for (let i = 0; i < 16; i++) {
    if (b[i] === 0 && tryzero === -1 && i % 2 === 0) {
      tryzero = i;
      continue;
    }
    if (tryzero !== -1 && (b[i] !== 0 || i === 15)) {
      if (i - tryzero > numzero) {
        firstzero = tryzero;
        numzero = i - (i % 2) - tryzero;
        if (b[i] === 0 && i === 15) numzero += 2;
      }
      tryzero = -1;
    }
  }
  const zero10 = b.subarray(0, 10).every((x) => x === 0);
  const v4 = ((b[12]! << 24) | (b[13]! << 16) | (b[14]! << 8) | b[15]!) >>> 0;
  const mapped = zero10 && b[10] === 0xff && b[11] === 0xff;
  const compat = zero10 && b[10] === 0 && b[11] === 0 && v4 > 1; // not :: nor ::1
  let tail = '', last = 14;
  if (mapped || compat) {
    tail = ipv4(b.subarray(12));
    if (ntoa6) return tail;
    last = 10;
  }
  // Groups from the last one back, as DTrace builds the text from its end.
  let out = tail;
  for (let i = last; i >= 0; i -= 2) {
    if (i === firstzero + numzero - 2) {
      out = '::' + out;
      i -= numzero - 2;
      continue;
    }
    if (i < 14 && i !== firstzero - 2) out = ':' + out;
    out = ((b[i]! << 8) | b[i + 1]!).toString(16) + out;
  }
  return out;
}

const INET_ADDRSTRLEN = 16;
const INET6_ADDRSTRLEN = 46;

function inet(m: DifMachine, af: number, addr: bigint, ntoa6 = false): bigint {
  if (af === AF_INET) {
    m.scratchFor(INET_ADDRSTRLEN);
    m.checkLoad(addr, 4n);
    return result(m, ipv4(m.readBytes(addr, 4)), INET_ADDRSTRLEN);
  }
  if (af === AF_INET6) {
    m.scratchFor(INET6_ADDRSTRLEN);
    m.checkLoad(addr, 16n);
    return result(m, ipv6(m.readBytes(addr, 16), ntoa6), INET6_ADDRSTRLEN);
  }
  throw new FaultSignal(D.DTRACEFLT_ILLOP);
}

/** The selector's elements as DTrace splits them: "a.b[2]" is a, b, 2; a leading "[" is dropped. */
function jsonElements(sel: Uint8Array): Uint8Array[] {
  const elems: number[][] = [[]];
  sel.forEach((c, i) => {
    if ((i === 0 && c === 0x5b) || c === 0x5d) return;
    if (c === 0x2e || c === 0x5b) elems.push([]);
    else elems[elems.length - 1]!.push(c);
  });
  return elems.map((e) => Uint8Array.from(e));
}

/** An array index element read as dtrace_strtoll reads base 10, wrapping at 64 bits. */
function jsonIndex(e: Uint8Array): bigint {
  let p = 0;
  while (e[p] === 0x20 || e[p] === 0x09) p++;
  const neg = e[p] === 0x2d;
  if (e[p] === 0x2d || e[p] === 0x2b) p++;
  let v = 0n;
  for (; p < e.length && e[p]! >= 0x30 && e[p]! <= 0x39; p++) v = BigInt.asIntN(64, v * 10n + BigInt(e[p]! - 0x30));
  return BigInt.asIntN(64, neg ? -v : v);
}

const isSpace = (c: number): boolean => c === 0x20 || (c >= 0x09 && c <= 0x0d);
const isDigit = (c: number): boolean => c >= 0x30 && c <= 0x39;
const isLower = (c: number): boolean => c >= 0x61 && c <= 0x7a;
const isXdigit = (c: number): boolean => isDigit(c) || (c >= 0x61 && c <= 0x66) || (c >= 0x41 && c <= 0x46);

/**
 * json(str, selector) as DTrace's dtrace_json() answers it: one pass over at most `limit` bytes
 * of the text, descending into the object member or array element each selector element names.
 * The value comes back as text: a string without its quotes (escapes as written), a number,
 * true/false/null, or a whole object or array as written. null when the text ends or is not
 * JSON as the pass expects, or the selector names nothing.
 */
export function jsonSelect(json: Uint8Array, selector: Uint8Array, limit: number): Uint8Array | null {
  const elems = jsonElements(selector);
  let el = 0;
  let state = 'rest';
  let arrayElem = 0n, arrayPos = 0n, unicount = 0, braces = 0, brackets = 0;
  let isKey = false, collect = false, found = false, inArray = false;
  const dest: number[] = [];
  const value = (): Uint8Array | null => (elems.length - el > 1 ? null : Uint8Array.from(dest));
  const enterArray = (): void => {
    inArray = true;
    arrayPos = 0n;
    arrayElem = jsonIndex(elems[el]!);
    found = arrayElem === 0n;
    state = 'value';
  };
  for (let cur = 0; cur < limit; cur++) {
    const c = json[cur] ?? 0;
    if (c === 0) return null;
    switch (state) {
      case 'rest':
        if (isSpace(c)) break;
        if (c === 0x7b) state = 'object';
        else if (c === 0x5b) enterArray();
        else return null;
        break;
      case 'object':
        if (isSpace(c)) break;
        if (c !== 0x22) return null;
        state = 'string';
        isKey = true;
        break;
      case 'string':
        if (c === 0x5c) {
          dest.push(c);
          state = 'escape';
        } else if (c === 0x22) {
          if (collect) {
            dest.push(c);
            collect = false;
            state = 'collect';
            break;
          }
          if (isKey) {
            const e = elems[el]!;
            if (dest.length === e.length && dest.every((x, i) => x === e[i])) found = true;
          } else if (found) {
            return value();
          }
          dest.length = 0;
          state = isKey ? 'colon' : 'comma';
          isKey = false;
        } else {
          dest.push(c);
        }
        break;
      case 'escape':
        dest.push(c);
        if (c === 0x75) {
          unicount = 0;
          state = 'unicode';
        } else {
          state = 'string';
        }
        break;
      case 'unicode':
        if (!isXdigit(c)) return null;
        dest.push(c);
        if (++unicount === 4) state = 'string';
        break;
      case 'colon':
        if (isSpace(c)) break;
        if (c !== 0x3a) return null;
        state = 'value';
        break;
      case 'comma':
        if (isSpace(c)) break;
        if (c !== 0x2c) return null;
        if (inArray) {
          state = 'value';
          if (++arrayPos === arrayElem) found = true;
        } else {
          state = 'object';
        }
        break;
      case 'identifier': {
        if (isLower(c)) {
          dest.push(c);
          break;
        }
        const word = Buffer.from(dest).toString('latin1');
        if (word !== 'true' && word !== 'false' && word !== 'null') return null;
        if (found) return value();
        dest.length = 0;
        cur--; // this character ends the word and is read again
        state = 'comma';
        break;
      }
      case 'number':
      case 'frac':
      case 'exp':
        if (state === 'number' && c === 0x2e) {
          dest.push(c);
          state = 'frac';
          break;
        }
        if (state === 'number' && (c === 0x78 || c === 0x58)) return null;
        if (state !== 'exp' && (c === 0x65 || c === 0x45)) {
          dest.push(c);
          state = 'exp';
          break;
        }
        if (state !== 'exp' && (c === 0x2b || c === 0x2d)) return null;
        if (isDigit(c) || c === 0x2b || c === 0x2d) {
          dest.push(c);
          break;
        }
        if (found) return value();
        dest.length = 0;
        cur--;
        state = 'comma';
        break;
      case 'value':
        if (isSpace(c)) break;
        if (c === 0x7b || c === 0x5b) {
          if (elems.length - el > 1 && found) {
            el++;
            dest.length = 0;
            if (c === 0x5b) {
              enterArray();
            } else {
              inArray = false;
              found = false;
              state = 'object';
            }
            break;
          }
          if (c === 0x5b) brackets = 1;
          else braces = 1;
          dest.push(c);
          state = 'collect';
        } else if (c === 0x22) {
          state = 'string';
        } else if (isLower(c)) {
          dest.push(c);
          state = 'identifier';
        } else if (c === 0x2d || isDigit(c)) {
          dest.push(c);
          state = 'number';
        } else {
          return null;
        }
        break;
      case 'collect':
        dest.push(c);
        if (c === 0x22) {
          collect = true;
          state = 'string';
          break;
        }
        if (c === 0x5d) {
          if (brackets-- === 0) return null;
        } else if (c === 0x7d) {
          if (braces-- === 0) return null;
        } else if (c === 0x7b) {
          braces++;
        } else if (c === 0x5b) {
          brackets++;
        }
        if (brackets === 0 && braces === 0) {
          if (found) return Uint8Array.from(dest);
          dest.length = 0;
          state = 'comma';
        }
        break;
    }
  }
  return null;
}

function json(m: DifMachine, args: bigint[]): bigint {
  const text = str(m, arg(args, 0)), sel = str(m, arg(args, 1));
  // DTrace reserves room for the value and the split selector, and keeps the value's part.
  m.scratchFor(text.length + 1 + sel.length + 1);
  const limit = m.strsize;
  const bytes = new Uint8Array(limit);
  bytes.set(m.readStringBytes(arg(args, 0), limit));
  const v = jsonSelect(bytes, sel, limit);
  return v === null ? 0n : result(m, v, text.length + 1);
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

/** memstr(addr, c, size): size - 1 bytes as a string, NULs made c (NULL for size 0). */
function memstr(m: DifMachine, args: bigint[]): bigint {
  const [addr, ch, size] = [arg(args, 0), arg(args, 1) & 0xffn, arg(args, 2)];
  if (size === 0n) return 0n;
  const len = Math.min(Number(size - 1n), m.strsize);
  m.checkLoad(addr, BigInt(len));
  m.scratchFor(m.strsize);
  const out = new Uint8Array(len);
  for (let i = 0; i < len; i++) {
    const b = m.byte(addr + BigInt(i));
    out[i] = b === 0 ? Number(ch) : b;
  }
  return result(m, out);
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
  [D.DIF_SUBR_INET_NTOA6, (m, a) => inet(m, AF_INET6, arg(a, 0), true)],
  [D.DIF_SUBR_INET_NTOP, (m, a) => inet(m, Number(S64(arg(a, 0))), arg(a, 1))],
  [D.DIF_SUBR_JSON, json],
  [D.DIF_SUBR_ARRAY_BOUND, (_m, a) => {
    const size = arg(a, 2), off = U64(arg(a, 0) * size);
    if (off >= U64(arg(a, 1) * size)) throw new FaultSignal(D.DTRACEFLT_BADINDEX, size === 0n ? off : off / size);
    return arg(a, 0);
  }],
  [D.DIF_SUBR_ALLOCA, (m, a) => m.allocScratch(arg(a, 0), 8)],
  [D.DIF_SUBR_BCOPY, bcopy],
  [D.DIF_SUBR_MEMSTR, memstr],
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
export const MACHINE_SUBROUTINES: readonly string[] = [...SUBROUTINES.keys()].map((n) => subrName(n));

/** Run subroutine `subr` on the arguments taken from the tuple stack. */
export function callSubroutine(m: DifMachine, subr: number, args: bigint[]): bigint {
  const f = SUBROUTINES.get(subr);
  if (!f) throw new Error(`the reference DIF machine does not implement subroutine ${subrName(subr)} (${subr})`);
  return U64(f(m, args));
}
