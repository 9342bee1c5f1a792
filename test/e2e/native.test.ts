// The native bridge on the real kernel: maps, the verifier's log, tracepoint and perf-event
// programs writing through bpf_perf_event_output into mmap'ed rings, test runs, errors.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { kernelUnavailable } from '../helpers/run.js';
import {
  BPF_ANY,
  BPF_F_CURRENT_CPU,
  BPF_F_TEST_RUN_ON_CPU,
  BPF_MAP_TYPE,
  BPF_NOEXIST,
  BPF_PROG_TYPE,
  isNativeError,
  native,
  PERF_COUNT_SW,
  PERF_SAMPLE_RAW,
  PERF_TYPE,
  type NativeError,
  uprobeRetprobeBit,
} from '../../src/device/native.js';
import { entryOffset } from '../helpers/uprobe-events.js';

// Every test here calls bpf(2) or perf_event_open: none runs where the kernel tests cannot.
const skip = kernelUnavailable();
beforeEach((ctx) => {
  if (skip) ctx.skip(skip);
});

// --- a tiny eBPF assembler: just the instructions these tests use ---
const R0 = 0, R1 = 1, R2 = 2, R3 = 3, R4 = 4, R5 = 5, R6 = 6, R10 = 10;
const HELPER_MAP_LOOKUP_ELEM = 1;
const HELPER_PERF_EVENT_OUTPUT = 25;

function insn(code: number, dst: number, src: number, off: number, imm: number): Buffer {
  const b = Buffer.alloc(8);
  b.writeUInt8(code, 0);
  b.writeUInt8((src << 4) | dst, 1);
  b.writeInt16LE(off, 2);
  b.writeInt32LE(imm, 4);
  return b;
}
const asm = {
  mov64Imm: (dst: number, imm: number) => insn(0xb7, dst, 0, 0, imm),
  mov64Reg: (dst: number, src: number) => insn(0xbf, dst, src, 0, 0),
  mov32Imm: (dst: number, imm: number) => insn(0xb4, dst, 0, 0, imm), // zero-extends
  add64Imm: (dst: number, imm: number) => insn(0x07, dst, 0, 0, imm),
  stW: (dst: number, off: number, imm: number) => insn(0x62, dst, 0, off, imm),
  stxDW: (dst: number, off: number, src: number) => insn(0x7b, dst, src, off, 0),
  atomicAddDW: (dst: number, off: number, src: number) => insn(0xdb, dst, src, off, 0),
  jeqImm: (dst: number, imm: number, off: number) => insn(0x15, dst, 0, off, imm),
  call: (helper: number) => insn(0x85, 0, 0, 0, helper),
  exit: () => insn(0x95, 0, 0, 0, 0),
  /** 64-bit immediate load (two slots). */
  lddw: (dst: number, value: bigint) =>
    Buffer.concat([
      insn(0x18, dst, 0, 0, Number(BigInt.asIntN(32, value))),
      insn(0, 0, 0, 0, Number(BigInt.asIntN(32, value >> 32n))),
    ]),
  /** Load a map's address from its fd (BPF_PSEUDO_MAP_FD). */
  ldMapFd: (dst: number, fd: number) =>
    Buffer.concat([insn(0x18, dst, 1, 0, fd), insn(0, 0, 0, 0, 0)]),
};
const program = (...insns: Buffer[]): Buffer => Buffer.concat(insns);

/** A program that stores a 12-byte payload at r10-16, outputs it to the perf array and returns 7. */
function outputProgram(mapFd: number, payload: Buffer): Buffer {
  expect(payload.length).toBe(12);
  return program(
    asm.mov64Reg(R6, R1),
    asm.lddw(R1, payload.readBigUInt64LE(0)),
    asm.stxDW(R10, -16, R1),
    asm.stW(R10, -8, payload.readInt32LE(8)),
    asm.mov64Reg(R1, R6),
    asm.ldMapFd(R2, mapFd),
    asm.mov32Imm(R3, BPF_F_CURRENT_CPU | 0),
    asm.mov64Reg(R4, R10),
    asm.add64Imm(R4, -16),
    asm.mov64Imm(R5, payload.length),
    asm.call(HELPER_PERF_EVENT_OUTPUT),
    asm.mov64Imm(R0, 7),
    asm.exit(),
  );
}

// --- fd bookkeeping: every test closes what it opened ---
const fds: number[] = [];
const rings: number[] = [];
function track(fd: number): number {
  fds.push(fd);
  return fd;
}
afterEach(() => {
  for (const h of rings.splice(0)) native.perfBufferClose(h);
  for (const fd of fds.splice(0).reverse()) native.close(fd);
});

const u32 = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(n);
  return b;
};
const u64 = (n: bigint) => {
  const b = Buffer.alloc(8);
  b.writeBigUInt64LE(n);
  return b;
};

/** A perf event array with one BPF-output event and ring per CPU. */
function perfOutputArray(pages = 64): { mapFd: number; eventFds: number[]; handles: number[] } {
  const ncpus = native.possibleCpus();
  const mapFd = track(
    native.mapCreate({ type: BPF_MAP_TYPE.PERF_EVENT_ARRAY, keySize: 4, valueSize: 4, maxEntries: ncpus }),
  );
  const eventFds: number[] = [];
  const handles: number[] = [];
  for (let cpu = 0; cpu < ncpus; cpu++) {
    const fd = track(
      native.perfEventOpen({
        type: PERF_TYPE.SOFTWARE,
        config: PERF_COUNT_SW.BPF_OUTPUT,
        sampleType: PERF_SAMPLE_RAW,
        wakeupEvents: 1,
        pid: -1,
        cpu,
      }),
    );
    native.mapUpdate(mapFd, u32(cpu), u32(fd));
    eventFds.push(fd);
    const h = native.perfBufferOpen(fd, pages);
    rings.push(h);
    handles.push(h);
  }
  return { mapFd, eventFds, handles };
}

function readAll(handles: number[]): { samples: Buffer[]; lost: number } {
  const samples: Buffer[] = [];
  let lost = 0;
  for (const h of handles) {
    const r = native.perfBufferRead(h);
    samples.push(...r.samples);
    lost += r.lost;
  }
  return { samples, lost };
}

function loadedProgIds(): number[] {
  const ids: number[] = [];
  for (let id = native.progGetNextId(0); id !== null; id = native.progGetNextId(id)) ids.push(id);
  return ids;
}

describe('maps', () => {
  test('array map: update, lookup, next key; delete is refused', () => {
    const fd = track(native.mapCreate({ type: BPF_MAP_TYPE.ARRAY, keySize: 4, valueSize: 8, maxEntries: 4, name: 'test_array' }));
    native.mapUpdate(fd, u32(1), u64(42n));
    const value = Buffer.alloc(8);
    expect(native.mapLookup(fd, u32(1), value)).toBe(true);
    expect(value.readBigUInt64LE()).toBe(42n);
    expect(native.mapLookup(fd, u32(0), value)).toBe(true);
    expect(value.readBigUInt64LE()).toBe(0n);
    expect(native.mapLookup(fd, u32(9), value)).toBe(false); // out of range: ENOENT
    expect(() => native.mapDelete(fd, u32(1))).toThrow(/bpf\(BPF_MAP_DELETE_ELEM\): Invalid argument/);
    const keys: number[] = [];
    const next = Buffer.alloc(4);
    for (let key: Buffer | null = null; native.mapNextKey(fd, key, next); key = Buffer.from(next)) {
      keys.push(next.readUInt32LE());
    }
    expect(keys).toEqual([0, 1, 2, 3]);
    // A Buffer smaller than the value would let the kernel write past it: refused before the call.
    expect(() => native.mapLookup(fd, u32(1), Buffer.alloc(4))).toThrow(RangeError);
  });

  test('hash map: update, lookup, delete, next key, batch lookup', () => {
    const fd = track(native.mapCreate({ type: BPF_MAP_TYPE.HASH, keySize: 8, valueSize: 8, maxEntries: 64 }));
    const expected = new Map<bigint, bigint>();
    for (let i = 1n; i <= 10n; i++) {
      native.mapUpdate(fd, u64(i * 1000n), u64(i * i), BPF_NOEXIST);
      expected.set(i * 1000n, i * i);
    }
    expect(() => native.mapUpdate(fd, u64(1000n), u64(0n), BPF_NOEXIST)).toThrow(
      expect.objectContaining({ code: 'EEXIST', errno: 17 }),
    );
    native.mapUpdate(fd, u64(1000n), u64(5n), BPF_ANY);
    expected.set(1000n, 5n);
    expect(native.mapDelete(fd, u64(2000n))).toBe(true);
    expect(native.mapDelete(fd, u64(2000n))).toBe(false);
    expected.delete(2000n);
    const value = Buffer.alloc(8);
    // Lookup-and-delete hands back the value the entry held as it went (trunc() carries it over).
    native.mapUpdate(fd, u64(99n), u64(7n), BPF_NOEXIST);
    expect(native.mapLookupAndDelete(fd, u64(99n), value)).toBe(true);
    expect(value.readBigUInt64LE()).toBe(7n);
    expect(native.mapLookupAndDelete(fd, u64(99n), value)).toBe(false);
    expect(native.mapLookup(fd, u64(2000n), value)).toBe(false);
    expect(native.mapLookup(fd, u64(3000n), value)).toBe(true);
    expect(value.readBigUInt64LE()).toBe(9n);

    const walked = new Map<bigint, bigint>();
    const next = Buffer.alloc(8);
    for (let key: Buffer | null = null; native.mapNextKey(fd, key, next); key = Buffer.from(next)) {
      expect(native.mapLookup(fd, next, value)).toBe(true);
      walked.set(next.readBigUInt64LE(), value.readBigUInt64LE());
    }
    expect(walked).toEqual(expected);

    // One batch large enough for everything.
    const keys = Buffer.alloc(64 * 8);
    const values = Buffer.alloc(64 * 8);
    const out = Buffer.alloc(8);
    const all = native.mapLookupBatch(fd, null, out, keys, values, 64);
    expect(all).toEqual({ count: 9, more: false });
    const batched = new Map<bigint, bigint>();
    for (let i = 0; i < all.count; i++) batched.set(keys.readBigUInt64LE(i * 8), values.readBigUInt64LE(i * 8));
    expect(batched).toEqual(expected);

    // Small batches, resuming from the previous out token.
    const paged = new Map<bigint, bigint>();
    let inBatch: Buffer | null = null;
    for (let rounds = 0; rounds < 100; rounds++) {
      const outBatch = Buffer.alloc(8);
      const r = native.mapLookupBatch(fd, inBatch, outBatch, keys, values, 4);
      for (let i = 0; i < r.count; i++) paged.set(keys.readBigUInt64LE(i * 8), values.readBigUInt64LE(i * 8));
      if (!r.more) break;
      inBatch = outBatch;
    }
    expect(paged).toEqual(expected);
  });

  test('per-CPU array values span every possible CPU', () => {
    const ncpus = native.possibleCpus();
    const fd = track(native.mapCreate({ type: BPF_MAP_TYPE.PERCPU_ARRAY, keySize: 4, valueSize: 4, maxEntries: 1 }));
    const values = Buffer.alloc(ncpus * 8); // each CPU's 4 bytes rounded up to 8
    for (let c = 0; c < ncpus; c++) values.writeUInt32LE(c + 100, c * 8);
    native.mapUpdate(fd, u32(0), values);
    const back = Buffer.alloc(ncpus * 8);
    expect(native.mapLookup(fd, u32(0), back)).toBe(true);
    expect(back).toEqual(values);
    expect(() => native.mapLookup(fd, u32(0), Buffer.alloc(8 * ncpus - 1))).toThrow(RangeError);
  });
});

test('a program the verifier rejects throws with the verifier log', () => {
  // exit without setting r0
  let err: unknown;
  try {
    track(native.progLoad({ type: BPF_PROG_TYPE.SOCKET_FILTER, insns: program(asm.exit()), license: 'GPL' }));
  } catch (e) {
    err = e;
  }
  expect(isNativeError(err)).toBe(true);
  const e = err as NativeError;
  expect(e.message).toBe('bpf(BPF_PROG_LOAD): Permission denied');
  expect(e.code).toBe('EACCES');
  expect(e.errno).toBe(13);
  expect(e.log).toMatch(/R0 !read_ok/);
});

test('btfLoad accepts a minimal BTF blob and explains a broken one', () => {
  const types = Buffer.alloc(16);
  types.writeUInt32LE(1, 0); // name "int"
  types.writeUInt32LE(1 << 24, 4); // BTF_KIND_INT
  types.writeUInt32LE(4, 8); // size
  types.writeUInt32LE((1 << 24) | 32, 12); // signed, 32 bits
  const strings = Buffer.from('\0int\0');
  const header = Buffer.alloc(24);
  header.writeUInt16LE(0xeb9f, 0);
  header.writeUInt8(1, 2);
  header.writeUInt32LE(24, 4);
  header.writeUInt32LE(0, 8);
  header.writeUInt32LE(types.length, 12);
  header.writeUInt32LE(types.length, 16);
  header.writeUInt32LE(strings.length, 20);
  track(native.btfLoad(Buffer.concat([header, types, strings])));

  types.writeUInt32LE(99, 0); // name offset past the strings
  let err: unknown;
  try {
    track(native.btfLoad(Buffer.concat([header, types, strings])));
  } catch (e) {
    err = e;
  }
  expect(isNativeError(err, 'EINVAL')).toBe(true);
  expect((err as NativeError).log).toMatch(/name/i);
});

describe('perf output', () => {
  test('tracepoint program on sys_enter_getppid writes records read from the rings', async () => {
    const idFile = '/sys/kernel/tracing/events/syscalls/sys_enter_getppid/id';
    if (!existsSync(idFile)) execFileSync('mount', ['-t', 'tracefs', 'nodev', '/sys/kernel/tracing']);
    const tracepointId = Number(readFileSync(idFile, 'utf8').trim());

    const { mapFd, eventFds, handles } = perfOutputArray(64);
    // Nothing attached yet: waitReadable times out with no fds, without blocking the event loop.
    let timerFired = false;
    setTimeout(() => (timerFired = true), 5);
    expect(await native.waitReadable(eventFds, 100)).toEqual([]);
    expect(timerFired).toBe(true);
    const payload = Buffer.from([0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11, 0x01, 0x00, 0xfe, 0xca]);
    const progFd = track(
      native.progLoad({ type: BPF_PROG_TYPE.TRACEPOINT, insns: outputProgram(mapFd, payload), license: 'GPL', name: 'getppid_out' }),
    );
    // One event (cpu 0) is enough: a tracepoint's programs run on every CPU once it is enabled.
    // Attaching the same program to a second event of the same tracepoint fails with EEXIST.
    const tp = track(native.perfEventOpen({ type: PERF_TYPE.TRACEPOINT, config: tracepointId, samplePeriod: 1, pid: -1, cpu: 0 }));
    native.perfEventSetBpf(tp, progFd);
    const tp1 = track(native.perfEventOpen({ type: PERF_TYPE.TRACEPOINT, config: tracepointId, pid: -1, cpu: 0 }));
    expect(() => native.perfEventSetBpf(tp1, progFd)).toThrow(expect.objectContaining({ code: 'EEXIST' }));
    // The kernel's count of skipped firings is readable (the consumer reports its growth).
    expect(native.progRecursionMisses(progFd)).toBeGreaterThanOrEqual(0);

    // Run the getppid loop on the last CPU, away from the event's cpu 0.
    const lastCpu = native.possibleCpus() - 1;
    const run = spawnSync('taskset', ['-c', String(lastCpu), 'python3', '-c', 'import os\nfor _ in range(1000): os.getppid()']);
    expect(run.status).toBe(0);
    const ready = await native.waitReadable(eventFds, 2000);
    expect(ready).toContain(eventFds[lastCpu]);
    const perCpu = handles.map((h) => native.perfBufferRead(h));
    expect(perCpu.reduce((n, r) => n + r.lost, 0)).toBe(0);
    const matching = perCpu[lastCpu].samples.filter((s) => s.equals(payload));
    expect(matching.length).toBeGreaterThanOrEqual(1000);
  });

  test('ring wrap-around: many small rounds through a one-page ring', async () => {
    const { mapFd, handles } = perfOutputArray(1);
    const payload = Buffer.from('0123456789ab');
    const progFd = track(
      native.progLoad({ type: BPF_PROG_TYPE.RAW_TRACEPOINT, insns: outputProgram(mapFd, payload), license: 'GPL' }),
    );
    // Each record is 24 bytes; 4096 / 24 is not whole, so records straddle the ring's end.
    let total = 0;
    for (let round = 0; round < 50; round++) {
      for (let i = 0; i < 100; i++) native.progTestRun(progFd, null, 0, 0);
      const { samples, lost } = readAll(handles);
      expect(lost).toBe(0);
      expect(samples.every((s) => s.equals(payload))).toBe(true);
      total += samples.length;
    }
    expect(total).toBe(5000);
  });

  test('overflowing a ring reports lost records', () => {
    const { mapFd, handles } = perfOutputArray(1);
    const payload = Buffer.from('lost-records');
    const progFd = track(
      native.progLoad({ type: BPF_PROG_TYPE.RAW_TRACEPOINT, insns: outputProgram(mapFd, payload), license: 'GPL' }),
    );
    for (let i = 0; i < 1000; i++) native.progTestRun(progFd, null, BPF_F_TEST_RUN_ON_CPU, 0);
    const first = native.perfBufferRead(handles[0]);
    expect(first.samples.length).toBeGreaterThan(0);
    expect(first.samples.length).toBeLessThan(1000);
    // The kernel writes its PERF_RECORD_LOST only with the next record that fits, once read.
    expect(first.lost).toBe(0);
    native.progTestRun(progFd, null, BPF_F_TEST_RUN_ON_CPU, 0);
    const second = native.perfBufferRead(handles[0]);
    expect(second.samples).toEqual([payload]);
    expect(second.lost).toBe(1000 - first.samples.length);
  });

  test('raw tracepoint program run by BPF_PROG_TEST_RUN (how BEGIN/END fire)', async () => {
    const { mapFd, eventFds, handles } = perfOutputArray(8);
    const payload = Buffer.from('BEGIN-probe!');
    const progFd = track(
      native.progLoad({ type: BPF_PROG_TYPE.RAW_TRACEPOINT, insns: outputProgram(mapFd, payload), license: 'GPL', name: 'dtrace_begin' }),
    );
    // No ctx, no flags: the program runs on the calling CPU and writes to that CPU's ring.
    expect(native.progTestRun(progFd, null)).toBe(7);
    expect((await native.waitReadable(eventFds, 1000)).length).toBe(1);
    let { samples } = readAll(handles);
    expect(samples).toEqual([payload]);

    // Pinned to each CPU in turn with BPF_F_TEST_RUN_ON_CPU: the record lands in that CPU's ring.
    for (let cpu = 0; cpu < native.possibleCpus(); cpu++) {
      expect(native.progTestRun(progFd, null, 1, cpu)).toBe(7);
      const r = native.perfBufferRead(handles[cpu]);
      expect(r.samples).toEqual([payload]);
    }
    // A ctx of raw tracepoint arguments is accepted too (up to 12 u64s).
    expect(native.progTestRun(progFd, Buffer.alloc(8))).toBe(7);
    expect(native.progTestRun(progFd, Buffer.alloc(8 * 12))).toBe(7);
    ({ samples } = readAll(handles));
    expect(samples).toEqual([payload, payload]);
    expect(() => native.progTestRun(progFd, Buffer.alloc(8 * 13))).toThrow(expect.objectContaining({ code: 'EINVAL' }));
  });

  test('the kernel pads raw payloads to keep records 8-byte aligned', () => {
    const { mapFd, handles } = perfOutputArray(8);
    // Output 8 bytes: the kernel reports 12 (u32 size + data rounded up to 8), zero padded.
    const insns = program(
      asm.mov64Reg(R6, R1),
      asm.lddw(R1, 0x0807060504030201n),
      asm.stxDW(R10, -8, R1),
      asm.mov64Reg(R1, R6),
      asm.ldMapFd(R2, mapFd),
      asm.mov32Imm(R3, BPF_F_CURRENT_CPU | 0),
      asm.mov64Reg(R4, R10),
      asm.add64Imm(R4, -8),
      asm.mov64Imm(R5, 8),
      asm.call(HELPER_PERF_EVENT_OUTPUT),
      asm.mov64Imm(R0, 0),
      asm.exit(),
    );
    const progFd = track(native.progLoad({ type: BPF_PROG_TYPE.RAW_TRACEPOINT, insns, license: 'GPL' }));
    native.progTestRun(progFd, null);
    const { samples } = readAll(handles);
    expect(samples).toEqual([Buffer.from([1, 2, 3, 4, 5, 6, 7, 8, 0, 0, 0, 0])]);
  });
});

test('perf event program on a cpu-clock sampling event counts into an array map', async () => {
  const mapFd = track(native.mapCreate({ type: BPF_MAP_TYPE.ARRAY, keySize: 4, valueSize: 8, maxEntries: 1 }));
  const insns = countingProgram(mapFd);
  const progFd = track(native.progLoad({ type: BPF_PROG_TYPE.PERF_EVENT, insns, license: 'GPL' }));
  const ev = track(
    native.perfEventOpen({ type: PERF_TYPE.SOFTWARE, config: PERF_COUNT_SW.CPU_CLOCK, samplePeriod: 1_000_000n, pid: -1, cpu: 0, disabled: true }),
  );
  native.perfEventSetBpf(ev, progFd);
  const count = () => {
    const v = Buffer.alloc(8);
    expect(native.mapLookup(mapFd, u32(0), v)).toBe(true);
    return v.readBigUInt64LE();
  };
  await new Promise((r) => setTimeout(r, 50));
  expect(count()).toBe(0n); // disabled: nothing yet
  native.perfEventEnable(ev);
  await new Promise((r) => setTimeout(r, 100));
  const first = count();
  await new Promise((r) => setTimeout(r, 100));
  const second = count();
  expect(first).toBeGreaterThan(0n);
  expect(second).toBeGreaterThan(first);
  native.perfEventDisable(ev);
  const stopped = count();
  await new Promise((r) => setTimeout(r, 50));
  expect(count()).toBe(stopped);
});

/** A program adding 1 to element 0 of the array map `mapFd` each time it runs. */
function countingProgram(mapFd: number): Buffer {
  return program(
    asm.stW(R10, -4, 0),
    asm.mov64Reg(R2, R10),
    asm.add64Imm(R2, -4),
    asm.ldMapFd(R1, mapFd),
    asm.call(HELPER_MAP_LOOKUP_ELEM),
    asm.jeqImm(R0, 0, 2),
    asm.mov64Imm(R1, 1),
    asm.atomicAddDW(R0, 0, R1),
    asm.mov64Imm(R0, 0),
    asm.exit(),
  );
}

test('uprobe PMU event with a program counting hits of /usr/bin/true at its entry point', (ctx) => {
  const pmuType = '/sys/bus/event_source/devices/uprobe/type';
  if (!existsSync(pmuType)) ctx.skip('this kernel has no uprobe PMU');
  const mapFd = track(native.mapCreate({ type: BPF_MAP_TYPE.ARRAY, keySize: 4, valueSize: 8, maxEntries: 1 }));
  const insns = countingProgram(mapFd);
  const progFd = track(native.progLoad({ type: BPF_PROG_TYPE.KPROBE, insns, license: 'GPL' }));
  const type = Number(readFileSync(pmuType, 'utf8'));
  const probeOffset = BigInt(entryOffset('/usr/bin/true'));
  const ev = track(native.perfEventOpen({ type, config: 0, uprobePath: '/usr/bin/true', probeOffset, pid: -1, cpu: 0 }));
  native.perfEventSetBpf(ev, progFd);
  for (let i = 0; i < 3; i++) expect(spawnSync('/usr/bin/true').status).toBe(0);
  const v = Buffer.alloc(8);
  native.mapLookup(mapFd, u32(0), v);
  expect(v.readBigUInt64LE()).toBe(3n);
  // A return probe: the PMU's retprobe bit is set from sysfs ("config:0" here).
  expect(uprobeRetprobeBit()).toBe(1n);
  track(native.perfEventOpen({ type, config: 0, uprobePath: '/usr/bin/true', probeOffset, retprobe: true, pid: -1, cpu: 0 }));
  expect(() => native.perfEventOpen({ type, config: 0, uprobePath: '/nonexistent', probeOffset, pid: -1, cpu: 0 })).toThrow(
    expect.objectContaining({ code: 'ENOENT', message: 'perf_event_open: No such file or directory' }),
  );
});

describe('errors', () => {
  test('mapLookup on a closed fd throws EBADF', () => {
    const fd = native.mapCreate({ type: BPF_MAP_TYPE.ARRAY, keySize: 4, valueSize: 4, maxEntries: 1 });
    native.close(fd);
    expect(() => native.mapLookup(fd, u32(0), Buffer.alloc(4))).toThrow(
      expect.objectContaining({
        message: 'bpf(BPF_MAP_LOOKUP_ELEM): Bad file descriptor',
        code: 'EBADF',
        errno: 9,
      }),
    );
  });

  test('bad arguments are TypeErrors, not crashes', () => {
    expect(() => native.mapLookup(-1, u32(0), Buffer.alloc(4))).toThrow(RangeError);
    expect(() => native.mapCreate({ type: 2, keySize: 4, valueSize: 4 } as never)).toThrow(/maxEntries is required/);
    expect(() => native.progLoad({ type: 1, insns: Buffer.alloc(3), license: 'GPL' })).toThrow(RangeError);
    expect(() => native.perfBufferRead(123456)).toThrow(expect.objectContaining({ code: 'EBADF' }));
    expect(() => native.close(1 << 30)).toThrow(expect.objectContaining({ code: 'EBADF' }));
  });

  test('waitReadable rejects a closed fd', async () => {
    await expect(native.waitReadable([1 << 20], 10)).rejects.toMatchObject({ code: 'EBADF' });
  });

  test('open and ioctl report errno', () => {
    expect(() => native.open('/nonexistent/dtrace', 0)).toThrow(expect.objectContaining({ code: 'ENOENT' }));
    const fd = track(native.open('/dev/null', 0));
    expect(() => native.ioctl(fd, 0x5401 /* TCGETS */, Buffer.alloc(64))).toThrow(expect.objectContaining({ code: 'ENOTTY' }));
    expect(native.pageSize()).toBe(4096);
  });
});

test('fds are close-on-exec and closing them removes the programs from the kernel', async () => {
  const fdsBefore = readdirSync('/proc/self/fd').length;
  const { mapFd, eventFds } = perfOutputArray(4);
  const progFd = native.progLoad({ type: BPF_PROG_TYPE.TRACEPOINT, insns: outputProgram(mapFd, Buffer.alloc(12)), license: 'GPL' });
  const id = Number(readFileSync('/sys/kernel/tracing/events/syscalls/sys_enter_getppid/id', 'utf8'));
  const tp = native.perfEventOpen({ type: PERF_TYPE.TRACEPOINT, config: id, pid: -1, cpu: 0 });
  native.perfEventSetBpf(tp, progFd);
  for (const fd of [mapFd, progFd, tp, ...eventFds]) {
    const flags = /^flags:\s+([0-7]+)$/m.exec(readFileSync(`/proc/self/fdinfo/${fd}`, 'utf8'));
    expect(parseInt(flags![1], 8) & 0o2000000).toBe(0o2000000); // O_CLOEXEC
  }
  const progId = Number(/^prog_id:\s+(\d+)$/m.exec(readFileSync(`/proc/self/fdinfo/${progFd}`, 'utf8'))![1]);
  expect(loadedProgIds()).toContain(progId);

  native.close(progFd); // the tracepoint event still holds the program
  expect(loadedProgIds()).toContain(progId);
  native.close(tp);
  for (const h of rings.splice(0)) native.perfBufferClose(h);
  for (const fd of fds.splice(0)) native.close(fd);
  // Programs are freed after an RCU grace period.
  for (let i = 0; i < 100 && loadedProgIds().includes(progId); i++) await new Promise((r) => setTimeout(r, 20));
  expect(loadedProgIds()).not.toContain(progId);
  expect(readdirSync('/proc/self/fd').length).toBe(fdsBefore);
});
