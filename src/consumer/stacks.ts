// Records of the stack and symbol actions -- stack(), ustack(), jstack(), sym()/func(), mod(),
// usym()/ufunc(), umod(), uaddr() -- as trace records and as aggregation keys, printed as
// libdtrace prints them (dt_print_stack, dt_print_ustack, dt_print_sym, dt_print_mod,
// dt_print_usym, dt_print_umod).
//
// Record layouts (as DTrace's kernel writes them): stack() is nframes u64 PCs, zero padded;
// ustack() and jstack() are the pid then nframes u64 PCs then strsize bytes; sym() and mod() one
// u64 address; usym(), umod() and uaddr() the pid then the address, each a u64.

import * as D from '../dif/constants.js';
import type { AggregationDescription, AggregationEntry, RecordDescription } from '../device/device.js';
import type { Value } from './records.js';
import type { SymbolInfo as PrintfSymbol, SymbolLookup } from './printf.js';
import { type SymbolInfo, type Symbolizer, frameText, symbolizer } from '../sys/symbols.js';

/** DTrace's stack indentation (_dtrace_stkindent). */
export const STACK_INDENT = 14;

/** The indentation of stack frames: the stackindent option, else STACK_INDENT. */
let indentation = STACK_INDENT;

/** Take the options the stack output honours (stackindent) for this dtrace run. */
export function configureStacks(options: Map<string, string> | undefined): void {
  const v = Number(options?.get('stackindent'));
  indentation = options?.has('stackindent') && Number.isInteger(v) && v >= 0 ? v : STACK_INDENT;
  const nr = options?.get('noresolve');
  noresolve = nr !== undefined && nr !== 'unset';
}

/** -x noresolve: user addresses are printed as addresses, not resolved to symbols. */
let noresolve = false;

function lookupUser(s: Symbolizer, pid: number, pc: bigint): ReturnType<Symbolizer['user']['lookup']> | null {
  return noresolve ? null : s.user.lookup(pid, pc);
}

const SYMBOLIC = new Set([
  D.DTRACEACT_STACK, D.DTRACEACT_USTACK, D.DTRACEACT_JSTACK, D.DTRACEACT_SYM, D.DTRACEACT_MOD,
  D.DTRACEACT_USYM, D.DTRACEACT_UMOD, D.DTRACEACT_UADDR,
]);

/** Is this a record of a stack or symbol action? */
export function isSymbolicAction(kind: number): boolean {
  return SYMBOLIC.has(kind);
}

function isUserAction(kind: number): boolean {
  return kind === D.DTRACEACT_USTACK || kind === D.DTRACEACT_JSTACK || kind === D.DTRACEACT_USYM ||
    kind === D.DTRACEACT_UMOD || kind === D.DTRACEACT_UADDR;
}

/** Frames of a stack record: PCs up to the first zero. */
function frames(data: Buffer, at: number, n: number): bigint[] {
  const out: bigint[] = [];
  for (let i = 0; i < n && at + 8 * i + 8 <= data.length; i++) {
    const pc = data.readBigUInt64LE(at + 8 * i);
    if (pc === 0n) break;
    out.push(pc);
  }
  return out;
}

function stackLines(frameTexts: string[], indent = indentation): string {
  let out = '\n';
  for (const f of frameTexts) out += ' '.repeat(indent) + f + '\n';
  return out;
}

/** The text of each frame of a stack(), ustack() or jstack() record; null for other records. */
export function stackFrames(kind: number, arg: bigint, data: Buffer, at: number, size: number, s: Symbolizer = symbolizer()): string[] | null {
  if (kind === D.DTRACEACT_STACK) {
    const n = Number(arg) || Math.floor(size / 8);
    return frames(data, at, n).map((pc) => frameText(pc, s.kernel.lookup(pc)));
  }
  if (kind === D.DTRACEACT_USTACK || kind === D.DTRACEACT_JSTACK) {
    const { nframes } = D.unpackUstackArg(arg);
    const pid = at + 8 <= data.length ? Number(data.readBigUInt64LE(at)) : 0;
    return frames(data, at + 8, nframes).map((pc) => uaddrText(s, pid, pc));
  }
  return null;
}

/** A user address as dtrace_uaddr2str prints it. */
function uaddrText(s: Symbolizer, pid: number, pc: bigint): string {
  return frameText(pc, pid > 0 ? lookupUser(s, pid, pc) : null);
}

/** The text of one stack or symbol record (at `at` in `data`), as DTrace prints it. */
export function formatSymbolic(kind: number, arg: bigint, data: Buffer, at: number, size: number, s: Symbolizer = symbolizer()): string {
  const u64 = (i: number) => (at + 8 * i + 8 <= data.length ? data.readBigUInt64LE(at + 8 * i) : 0n);
  const field = (text: string) => '  ' + text.padEnd(50, ' ');
  switch (kind) {
    case D.DTRACEACT_STACK:
      return stackLines(stackFrames(kind, arg, data, at, size, s) ?? []);
    case D.DTRACEACT_USTACK:
    case D.DTRACEACT_JSTACK:
      if (D.unpackUstackArg(arg).nframes === 0) return '';
      return stackLines(stackFrames(kind, arg, data, at, size, s) ?? []);
    case D.DTRACEACT_SYM: {
      const pc = u64(0);
      const info = s.kernel.lookup(pc);
      if (info?.name !== undefined) return field(`${info.object}\`${info.name}`);
      return field(frameText(pc, info));
    }
    case D.DTRACEACT_MOD: {
      const pc = u64(0);
      const info = s.kernel.lookup(pc);
      return field(info ? info.object : `0x${pc.toString(16)}`);
    }
    case D.DTRACEACT_USYM:
    case D.DTRACEACT_UADDR: {
      const pid = Number(u64(0));
      let pc = u64(1);
      if (kind === D.DTRACEACT_USYM && pid > 0) pc = lookupUser(s, pid, pc)?.start ?? pc;
      return field(uaddrText(s, pid, pc));
    }
    case D.DTRACEACT_UMOD: {
      const pid = Number(u64(0));
      const pc = u64(1);
      const info = pid > 0 ? lookupUser(s, pid, pc) : null;
      return field(info ? info.object : `0x${pc.toString(16)}`);
    }
    default:
      return '';
  }
}

/** A trace record of a stack or symbol action. */
export function formatSymbolicRecord(r: RecordDescription, data: Buffer, s: Symbolizer = symbolizer()): string {
  return formatSymbolic(r.action, r.arg, data, r.offset, r.size, s);
}

/** The pid a user-stack or user-symbol record was taken in (0 for kernel records). */
export function recordPid(kind: number, data: Buffer, at: number): number {
  if (!isUserAction(kind) || at + 8 > data.length) return 0;
  return Number(data.readBigUInt64LE(at));
}

/** An aggregation key of a stack or symbol action: its bytes, printed as DTrace prints them. */
export function symbolicKey(r: RecordDescription, key: Buffer, s: Symbolizer = symbolizer()): Value {
  const value = Buffer.from(key.subarray(r.offset, r.offset + r.size));
  const frameTexts = stackFrames(r.action, r.arg, key, r.offset, r.size, s);
  const shown = formatSymbolic(r.action, r.arg, key, r.offset, r.size, s);
  // A kernel address is an integer to printa's %a; user records stay pid + address for %A.
  if ((r.action === D.DTRACEACT_SYM || r.action === D.DTRACEACT_MOD) && value.length === 8)
    return { kind: 'int', value: value.readBigUInt64LE(0), size: 8, signed: false, shown };
  return frameTexts ? { kind: 'bytes', value, shown, frames: frameTexts } : { kind: 'bytes', value, shown };
}

/** Symbol lookups for printf's %a, %A and %k. */
export function printfSymbols(s: Symbolizer = symbolizer()): { kernelSymbols: SymbolLookup; userSymbols: SymbolLookup; stackIndent: number } {
  const convert = (i: SymbolInfo | null): PrintfSymbol | undefined => {
    if (!i) return undefined;
    return i.name !== undefined && i.start !== undefined ? { module: i.object, symbol: { name: i.name, value: i.start } } : { module: i.object };
  };
  return {
    kernelSymbols: (addr) => convert(s.kernel.lookup(addr)),
    userSymbols: (addr, pid) => (pid !== undefined && pid > 0n ? convert(lookupUser(s, Number(pid), addr)) : undefined),
    stackIndent: indentation,
  };
}

/**
 * Read the mappings of every process that appears in a user-stack or user-symbol key while it
 * still runs, so that its keys can be printed after it exits.
 */
export function rememberKeyProcesses(descs: AggregationDescription[], entries: AggregationEntry[], s: Symbolizer = symbolizer()): void {
  const users = new Map<number, RecordDescription[]>();
  for (const d of descs) {
    const recs = d.keys.filter((k) => isUserAction(k.action));
    if (recs.length > 0) users.set(d.id, recs);
  }
  if (users.size === 0) return;
  for (const e of entries) {
    for (const r of users.get(e.id) ?? []) s.user.remember(recordPid(r.action, e.key, r.offset));
  }
}

/** Does any aggregation have a user-stack or user-symbol key? */
export function hasUserKeys(descs: AggregationDescription[]): boolean {
  return descs.some((d) => d.keys.some((k) => isUserAction(k.action)));
}

/**
 * sym(), mod(), usym() and umod() keys stand for a function or a module, not an address: as
 * libdtrace does when it snapshots aggregations, each such key's address becomes its function's
 * (module's) start and entries that then share a key are merged.
 */
export function normalizeSymbolKeys(desc: AggregationDescription, entries: AggregationEntry[], s: Symbolizer = symbolizer()): (AggregationEntry & { sources?: Buffer[] })[] {
  const recs = desc.keys.filter((k) => k.action === D.DTRACEACT_SYM || k.action === D.DTRACEACT_MOD ||
    k.action === D.DTRACEACT_USYM || k.action === D.DTRACEACT_UMOD);
  if (recs.length === 0) return entries;
  const merged = new Map<string, AggregationEntry & { sources: Buffer[] }>();
  for (const e of entries) {
    if (e.id !== desc.id) continue;
    const key = Buffer.from(e.key);
    for (const r of recs) {
      const user = isUserAction(r.action);
      const at = r.offset + (user ? 8 : 0);
      if (at + 8 > key.length) continue;
      const pc = key.readBigUInt64LE(at);
      const pid = user ? Number(key.readBigUInt64LE(r.offset)) : 0;
      let base: bigint | null | undefined;
      if (r.action === D.DTRACEACT_SYM) base = s.kernel.lookup(pc)?.start;
      else if (r.action === D.DTRACEACT_MOD) base = s.kernel.moduleBase(pc);
      else if (r.action === D.DTRACEACT_USYM) base = pid > 0 ? lookupUser(s, pid, pc)?.start : undefined;
      else base = pid > 0 ? s.user.mappingBase(pid, pc) : undefined;
      if (base !== null && base !== undefined) key.writeBigUInt64LE(base, at);
    }
    const hex = key.toString('hex');
    const known = merged.get(hex);
    if (known) known.perCpu.push(...e.perCpu), known.sources.push(e.key);
    else merged.set(hex, { id: e.id, key, perCpu: [...e.perCpu], sources: [e.key] });
  }
  return [...merged.values()];
}
