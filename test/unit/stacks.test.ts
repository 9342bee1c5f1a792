// Stacks and symbols without the kernel: the actions the compiler emits for stack(), ustack(),
// jstack() and the symbol actions (statements and aggregation keys, with the frame options), the
// record layouts of the Linux bridge, kallsyms and /proc/PID/maps parsing, ELF lookups through a
// process mapping, and the consumer's output of stack and symbol records and keys.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import * as D from '../../src/dif/constants.js';
import { compile, SourceError } from '../../src/compiler/compile.js';
import { ProbeRegistry } from '../../src/providers/registry.js';
import type { ActionDescription, Program } from '../../src/dof/program.js';
import { readDof } from '../../src/dof/reader.js';
import { writeDof } from '../../src/dof/writer.js';
import { readElf } from '../../src/sys/elf.js';
import { stackRecord } from '../../src/device/linux/stack.js';
import {
  KernelSymbols, Symbolizer, frameText, lookupInMappings, parseKallsyms, parseMaps,
} from '../../src/sys/symbols.js';
import { formatSymbolic, normalizeSymbolKeys, printfSymbols, symbolicKey } from '../../src/consumer/stacks.js';
import { formatAggKey } from '../../src/consumer/aggprint.js';
import { mergePerCpu } from '../../src/consumer/aggregations.js';
import { formatPrintf } from '../../src/consumer/printf.js';
import type { AggregationDescription, RecordDescription } from '../../src/device/device.js';

function program(text: string, options = new Map<string, string>()): Program {
  return compile([{ kind: 's', text, name: 'test.d' }], {
    registry: new ProbeRegistry(), options, macroArgs: [], zdefs: true,
  }).program;
}

function actions(body: string, options?: Map<string, string>): ActionDescription[] {
  return program(`BEGIN { ${body} }`, options).ecbs[0].actions;
}

function compileError(body: string): string {
  try {
    program(`BEGIN\n{\n${body}\n}`);
  } catch (e) {
    if (e instanceof SourceError) return `${e.error.tag}: ${e.error.message}`;
    throw e;
  }
  return 'compiled';
}

function words(...ws: bigint[]): Buffer {
  const b = Buffer.alloc(8 * ws.length);
  ws.forEach((w, i) => b.writeBigUInt64LE(BigInt.asUintN(64, w), 8 * i));
  return b;
}

const KALLSYMS = [
  'ffffffff81000000 T _stext',
  'ffffffff81001000 T do_syscall_64',
  'ffffffff81001200 t helper_a',
  'ffffffff81002000 D some_data',
  'ffffffffc0100000 t ext4_read\t[ext4]',
  'ffffffffc0100400 T ext4_write\t[ext4]',
  '0000000000000000 A fixed_percpu_data',
].join('\n');

function fakeSymbolizer(): Symbolizer {
  return new Symbolizer(new KernelSymbols(parseKallsyms(KALLSYMS)));
}

describe('compiler: stack and symbol actions', () => {
  test('stack() takes its frames from stackframes (default 20) or its argument', () => {
    expect(actions('stack();')[0]).toMatchObject({ kind: D.DTRACEACT_STACK, difo: null, arg: 20n });
    expect(actions('stack(5);')[0]).toMatchObject({ kind: D.DTRACEACT_STACK, arg: 5n });
    expect(actions('stack();', new Map([['stackframes', '7']]))[0].arg).toBe(7n);
    expect(program('#pragma D option stackframes=3\nBEGIN { stack(); }').ecbs[0].actions[0].arg).toBe(3n);
  });

  test('ustack() and jstack() carry frames and string size packed as DTRACE_USTACK_ARG', () => {
    expect(actions('ustack();')[0]).toMatchObject({ kind: D.DTRACEACT_USTACK, arg: D.packUstackArg(100, 0) });
    expect(actions('ustack(4, 32);')[0].arg).toBe(D.packUstackArg(4, 32));
    expect(actions('ustack();', new Map([['ustackframes', '9']]))[0].arg).toBe(D.packUstackArg(9, 0));
    expect(actions('jstack();')[0]).toMatchObject({ kind: D.DTRACEACT_JSTACK, arg: D.packUstackArg(50, 512) });
  });

  test('the symbol actions compute their address in a DIF object', () => {
    const kinds = actions('sym(arg0); func(arg0); mod(arg0); usym(arg1); ufunc(arg1); umod(arg1); uaddr(arg1);').map((a) => a.kind);
    expect(kinds).toEqual([
      D.DTRACEACT_SYM, D.DTRACEACT_SYM, D.DTRACEACT_MOD, D.DTRACEACT_USYM, D.DTRACEACT_USYM, D.DTRACEACT_UMOD, D.DTRACEACT_UADDR,
    ]);
    expect(actions('sym(arg0);')[0].difo?.rtype.size).toBe(8);
  });

  test('as aggregation keys they precede the aggregating action, which counts them', () => {
    const acts = actions('@[stack(3), ustack(2), usym(arg1), execname] = count();');
    expect(acts.map((a) => a.kind)).toEqual([
      D.DTRACEACT_STACK, D.DTRACEACT_USTACK, D.DTRACEACT_USYM, D.DTRACEACT_DIFEXPR, D.DTRACEAGG_COUNT,
    ]);
    expect(acts[4].ntuple).toBe(4);
    expect(acts[0].arg).toBe(3n);
  });

  test('they survive the DOF round trip', () => {
    const p = program('BEGIN { stack(4); ustack(6, 8); @[umod(arg1)] = count(); }');
    const back = readDof(writeDof(p)).ecbs[0].actions;
    expect(back.map((a) => [a.kind, a.arg])).toEqual(p.ecbs[0].actions.map((a) => [a.kind, a.arg]));
  });

  test('bad arguments get DTrace diagnostics', () => {
    expect(compileError('stack(0);')).toBe('D_STACK_SIZE: stack( ) argument #1 must be a non-zero positive integer constant');
    expect(compileError('stack(arg0);')).toMatch(/^D_STACK_SIZE/);
    expect(compileError('ustack(-2);')).toBe('D_USTACK_FRAMES: ustack( ) argument #1 must be a non-zero positive integer constant');
    expect(compileError('ustack(2, -1);')).toBe('D_USTACK_STRSIZE: ustack( ) argument #2 must be a positive integer constant');
    expect(compileError('sym();')).toBe('D_PROTO_LEN: sym( ) prototype mismatch: 0 args passed, 1 expected');
    expect(compileError('umod("x");')).toMatch(/^D_PROTO_ARG: umod\( \) argument #1 is incompatible with prototype:\n\tprototype: _usymaddr\n\t argument: string/);
  });

  test('printa may print a stack key with %k and symbol keys with %a and %A', () => {
    expect(compileError('@[stack()] = count(); printa("%k %@d", @);')).toBe('compiled');
    expect(compileError('@[func(arg0)] = count(); printa("%a %@d", @);')).toBe('compiled');
    expect(compileError('@[usym(arg1)] = count(); printa("%A %@d", @);')).toBe('compiled');
  });

  test('they are actions, not expressions', () => {
    expect(compileError('trace(stack());')).toBe('D_CG_EXPR: tracing function stack( ) may not be called from a D expression (D program context required)');
    expect(compileError('x = func(0);')).toMatch(/^D_CG_EXPR: tracing function func\( \)/);
  });
});

describe('Linux bridge: record layouts', () => {
  test('as DTrace lays them out', () => {
    expect(stackRecord(D.DTRACEACT_STACK, 20n)).toMatchObject({ size: 160, alignment: 8 });
    expect(stackRecord(D.DTRACEACT_USTACK, D.packUstackArg(100, 0))?.size).toBe(808); // pid + 100 PCs
    expect(stackRecord(D.DTRACEACT_USTACK, D.packUstackArg(2, 5))?.size).toBe(32); // 24 + 5, rounded
    expect(stackRecord(D.DTRACEACT_SYM, 0n)?.size).toBe(8);
    expect(stackRecord(D.DTRACEACT_UADDR, 0n)?.size).toBe(16); // pid, address
    expect(stackRecord(D.DTRACEACT_DIFEXPR, 0n)).toBeNull();
  });
});

describe('kernel symbols', () => {
  test('kallsyms: code and data symbols sorted, module from the bracket column, vmlinux otherwise', () => {
    const syms = parseKallsyms(KALLSYMS);
    expect(syms.map((s) => s.name)).toEqual(['_stext', 'do_syscall_64', 'helper_a', 'some_data', 'ext4_read', 'ext4_write']);
    expect(syms[4].module).toBe('ext4');
    expect(syms[0].module).toBe('vmlinux');
  });

  test('lookup: the symbol at or before the address', () => {
    const k = new KernelSymbols(parseKallsyms(KALLSYMS));
    expect(k.lookup(0xffffffff8100105cn)).toEqual({ object: 'vmlinux', name: 'do_syscall_64', start: 0xffffffff81001000n });
    expect(k.lookup(0xffffffffc0100410n)?.name).toBe('ext4_write');
    expect(k.lookup(0x1000n)).toBeNull();
    expect(k.lookup(0xffffffffc0900000n)).toBeNull(); // far past the last symbol
    expect(k.moduleBase(0xffffffffc0100410n)).toBe(0xffffffffc0100000n);
  });

  test('extent: a vmlinux function runs to the next symbol; unknown, a module\'s or the last: null', () => {
    const k = new KernelSymbols(parseKallsyms(KALLSYMS));
    expect(k.extent('do_syscall_64')).toEqual([0xffffffff81001000n, 0xffffffff81001200n]);
    expect(k.extent('no_such_function')).toBeNull();
    expect(k.extent('ext4_read')).toBeNull();
    expect(k.extent('ext4_write')).toBeNull();
  });

  test('frames print as module`function+0xoff, module`function at its start, else hex', () => {
    const k = new KernelSymbols(parseKallsyms(KALLSYMS));
    expect(frameText(0xffffffff8100105cn, k.lookup(0xffffffff8100105cn))).toBe('vmlinux`do_syscall_64+0x5c');
    expect(frameText(0xffffffff81001000n, k.lookup(0xffffffff81001000n))).toBe('vmlinux`do_syscall_64');
    expect(frameText(0x10n, null)).toBe('0x10');
    expect(frameText(0x7f00n, { object: 'libc.so.6' })).toBe('libc.so.6`0x7f00');
  });
});


describe('user symbols', () => {
  let prog = '';
  beforeAll(() => {
    const dir = mkdtempSync(path.join(tmpdir(), 'dtrace-stacks-'));
    const src = path.join(dir, 'p.c');
    writeFileSync(src, 'int named_function(int x) { return x * 3; }\nint main(void) { return named_function(1) == 3 ? 0 : 1; }\n');
    prog = path.join(dir, 'p');
    const r = spawnSync('gcc', ['-O0', '-g', '-o', prog, src], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(r.stderr);
  });

  test('maps: file-backed mappings with their file offsets', () => {
    const maps = parseMaps([
      '55d4a0000000-55d4a0001000 r--p 00000000 08:01 1234                       /usr/bin/prog',
      '55d4a0001000-55d4a0002000 r-xp 00001000 08:01 1234                       /usr/bin/prog',
      '7ffd1000-7ffd2000 rw-p 00000000 00:00 0                          [stack]',
      '7f0000000000-7f0000001000 rw-p 00000000 00:00 0 ',
    ].join('\n'));
    expect(maps).toEqual([
      { start: 0x55d4a0000000n, end: 0x55d4a0001000n, offset: 0n, path: '/usr/bin/prog' },
      { start: 0x55d4a0001000n, end: 0x55d4a0002000n, offset: 0x1000n, path: '/usr/bin/prog' },
    ]);
  });

  test('an address in a mapped PIE resolves through its segments to the ELF symbol', () => {
    const elf = readElf(prog);
    const fn = elf.lookupFunction('named_function')!;
    const base = 0x555555554000n;
    // Map the whole file at base, as the loader does for each PT_LOAD at its page offset.
    const maps = [{ start: base, end: base + 0x10000n, offset: 0n, path: prog }];
    const load = () => ({ elf, funcs: elf.functions() });
    const pc = base + fn.value + 4n;
    const hit = lookupInMappings(maps, pc, load);
    expect(hit).toEqual({ object: 'p', name: 'named_function', start: base + fn.value });
    expect(frameText(pc, hit)).toBe('p`named_function+0x4');
    expect(lookupInMappings(maps, base + 0x20000n, load)).toBeNull();
  });

  test('the running process resolves its own mapped objects', (ctx) => {
    const s = new Symbolizer(new KernelSymbols([]));
    const maps = parseMaps(readFileSync(`/proc/${process.pid}/maps`, 'utf8'));
    const node = maps.find((m) => m.path === process.execPath);
    if (!node) return ctx.skip(`${process.execPath} is not among /proc/${process.pid}/maps's paths`);
    expect(s.user.lookup(process.pid, node.start)?.object).toBe(path.basename(process.execPath));
    expect(s.user.mappingBase(process.pid, node.start)).toBe(node.start);
  });
});

describe('consumer: stack and symbol records', () => {
  const s = fakeSymbolizer();

  test('stack(): a newline, then each frame indented 14 on its own line, up to the first zero PC', () => {
    const data = words(0xffffffff8100105cn, 0xffffffff81001204n, 0n, 0n);
    expect(formatSymbolic(D.DTRACEACT_STACK, 4n, data, 0, 32, s)).toBe(
      '\n' + ' '.repeat(14) + 'vmlinux`do_syscall_64+0x5c\n' + ' '.repeat(14) + 'vmlinux`helper_a+0x4\n');
  });

  test('ustack(): the pid first, then frames; unknown processes print hex', () => {
    const data = words(999999999n, 0x401000n, 0x401234n, 0n);
    expect(formatSymbolic(D.DTRACEACT_USTACK, D.packUstackArg(3, 0), data, 0, 32, s)).toBe(
      '\n' + ' '.repeat(14) + '0x401000\n' + ' '.repeat(14) + '0x401234\n');
  });

  test('sym() drops the offset, mod() prints the module; both in a 50-column field', () => {
    const pc = words(0xffffffffc0100410n);
    expect(formatSymbolic(D.DTRACEACT_SYM, 0n, pc, 0, 8, s)).toBe('  ' + 'ext4`ext4_write'.padEnd(50));
    expect(formatSymbolic(D.DTRACEACT_MOD, 0n, pc, 0, 8, s)).toBe('  ' + 'ext4'.padEnd(50));
    expect(formatSymbolic(D.DTRACEACT_SYM, 0n, words(5n), 0, 8, s)).toBe('  ' + '0x5'.padEnd(50));
  });

  test('an aggregation stack key prints as its stack; printa %k uses its frames', () => {
    const rec: RecordDescription = { action: D.DTRACEACT_STACK, size: 16, offset: 0, alignment: 8, arg: 2n, uarg: 0n, type: 'bytes' };
    const key = symbolicKey(rec, words(0xffffffff8100105cn, 0n), s);
    expect(formatAggKey(key)).toBe('\n' + ' '.repeat(14) + 'vmlinux`do_syscall_64+0x5c\n');
    expect(formatPrintf('%-4k|', [key])).toBe('\n    vmlinux`do_syscall_64+0x5c\n|');
  });

  test('sym() keys of one function merge into one entry, as libdtrace normalizes them', () => {
    const rec: RecordDescription = { action: D.DTRACEACT_SYM, size: 8, offset: 0, alignment: 8, arg: 0n, uarg: 0n, type: 'uint' };
    const desc: AggregationDescription = { id: 1, name: '', action: D.DTRACEAGG_COUNT, arg: 0n, keys: [rec], keySize: 8, valueSize: 8 };
    const merged = normalizeSymbolKeys(desc, [
      { id: 1, key: words(0xffffffff81001004n), perCpu: [words(2n), words(1n)] },
      { id: 1, key: words(0xffffffff81001010n), perCpu: [words(4n), words(0n)] },
      { id: 1, key: words(0xffffffff81001204n), perCpu: [words(1n), words(0n)] },
    ], s);
    expect(merged.map((e) => [e.key.readBigUInt64LE(0), mergePerCpu(D.DTRACEAGG_COUNT, e.perCpu)])).toEqual([
      [0xffffffff81001000n, 7n], [0xffffffff81001200n, 1n],
    ]);
    const key = symbolicKey(rec, merged[0].key, s);
    expect(formatAggKey(key)).toBe('  ' + 'vmlinux`do_syscall_64'.padEnd(50));
    // printa's %a reads it as the (normalized) address.
    expect(formatPrintf('%a|', [key], { kernelSymbols: printfSymbols(s).kernelSymbols })).toBe('vmlinux`do_syscall_64|');
  });

  test('usym() keys print the function without offset; uaddr() keeps it; unknown processes print hex', () => {
    const user = new Symbolizer(new KernelSymbols([]));
    user.user.setMappings(0x3fffffff, []);
    const rec = (action: number): RecordDescription => ({ action, size: 16, offset: 0, alignment: 8, arg: 0n, uarg: 0n, type: 'bytes' });
    expect(formatAggKey(symbolicKey(rec(D.DTRACEACT_USYM), words(0x3fffffffn, 0x401000n), user))).toBe('  ' + '0x401000'.padEnd(50));
    expect(formatAggKey(symbolicKey(rec(D.DTRACEACT_UMOD), words(0x3fffffffn, 0x401000n), user))).toBe('  ' + '0x401000'.padEnd(50));
  });
});
