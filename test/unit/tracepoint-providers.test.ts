// Tracepoint-based providers without the kernel: format fields to arguments, sdt listing from a
// tracefs tree, the syscall number table, and when probes share a dispatcher.
import { describe, expect, test } from 'vitest';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseFormat } from '../../src/providers/tracefs.js';
import { recordArgs, namedFieldArgs } from '../../src/providers/tracepoint-probe.js';
import { SdtProvider } from '../../src/providers/sdt.js';
import { ProcProvider } from '../../src/providers/proc.js';
import { parseUnistd } from '../../src/providers/syscall-numbers.js';
import { DispatchPlan, MIN_DISPATCHED, planDispatch } from '../../src/device/linux/dispatch.js';
import type { Probe } from '../../src/providers/provider.js';

const EXEC_FORMAT = `name: sched_process_exec
ID: 321
format:
\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;
\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;
\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;
\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;

\tfield:__data_loc char[] filename;\toffset:8;\tsize:4;\tsigned:0;
\tfield:pid_t pid;\toffset:12;\tsize:4;\tsigned:1;
\tfield:char comm[16];\toffset:16;\tsize:16;\tsigned:0;
\tfield:bool group_dead;\toffset:32;\tsize:1;\tsigned:0;

print fmt: "filename=%s", __get_str(filename)
`;

function fakeTracefs(): string {
  const root = mkdtempSync(path.join(tmpdir(), 'tracefs-'));
  writeFileSync(path.join(root, 'available_events'), 'sched:sched_process_exec\nsyscalls:sys_enter_read\nkprobes:myprobe\nblock:block_rq_issue\ndt_42_dtrace:BEGIN\n');
  // another tracer's uprobe, in a group of its own (as DTrace for Linux makes for BEGIN)
  writeFileSync(path.join(root, 'dynamic_events'), 'p:dt_42_dtrace/BEGIN /lib/libdtrace.so:0x7a570\n');
  for (const [g, e] of [['sched', 'sched_process_exec'], ['sched', 'sched_process_exit'], ['block', 'block_rq_issue']]) {
    mkdirSync(path.join(root, 'events', g, e), { recursive: true });
    writeFileSync(path.join(root, 'events', g, e, 'format'), EXEC_FORMAT);
  }
  return root;
}

describe('tracepoint record fields as probe arguments', () => {
  const fields = parseFormat(EXEC_FORMAT).fields;

  test('skip the common header; strings, arrays and scalars each as DTrace for Linux passes them', () => {
    expect(recordArgs(fields)).toEqual([
      { index: 0, type: 'string', from: { kind: 'dataLoc', offset: 8, relative: false } },
      { index: 1, type: 'pid_t', from: { kind: 'field', offset: 12, size: 4, signed: true } },
      { index: 2, type: 'char [16]', from: { kind: 'fieldAddress', offset: 16 } },
      { index: 3, type: 'bool', from: { kind: 'field', offset: 32, size: 1, signed: false } },
    ]);
  });

  test('stable providers pick named fields, untyped', () => {
    expect(namedFieldArgs(['pid'])(fields)).toEqual([
      { index: 0, type: null, from: { kind: 'field', offset: 12, size: 4, signed: true } },
    ]);
    expect(() => namedFieldArgs(['nope'])(fields)).toThrow(/no field "nope"/);
  });
});

describe('sdt provider', () => {
  test('every available tracepoint but syscalls, kprobes and uprobes (whatever their group), as sdt:GROUP::NAME', () => {
    const probes = new SdtProvider(fakeTracefs()).list();
    expect(probes.map((p) => `${p.provider}:${p.module}:${p.func}:${p.name}`)).toEqual([
      'sdt:block::block_rq_issue',
      'sdt:sched::sched_process_exec',
    ]);
    expect(probes[1].attach).toEqual({ kind: 'tracepoint', group: 'sched', event: 'sched_process_exec' });
    expect(probes[1].args[0].type).toBe('string');
  });
});

describe('sdt provider and other tracers\' dynamic events', () => {
  test('a uprobe or kprobe another tracer made in a group of its own is not an sdt probe', () => {
    const root = fakeTracefs();
    // As DTrace for Linux leaves them: a uprobe group per dtrace process, holding BEGIN and END.
    writeFileSync(path.join(root, 'available_events'), 'sched:sched_process_exec\ndt_123_dtrace:BEGIN\ndt_123_dtrace:END\nmyk:open\n');
    writeFileSync(path.join(root, 'dynamic_events'),
      'p:dt_123_dtrace/BEGIN /usr/lib64/libdtrace.so.2:0x7a570\np:dt_123_dtrace/END /usr/lib64/libdtrace.so.2:0x7a580\nr16:myk/open do_sys_open\n');
    expect(new SdtProvider(root).list().map((p) => `${p.provider}:${p.module}:${p.func}:${p.name}`)).toEqual([
      'sdt:sched::sched_process_exec',
    ]);
  });

  test('without dynamic_events, kprobe_events and uprobe_events say the same', () => {
    const root = fakeTracefs();
    writeFileSync(path.join(root, 'available_events'), 'sched:sched_process_exec\ndt_9_dtrace:BEGIN\n');
    rmSync(path.join(root, 'dynamic_events'));
    writeFileSync(path.join(root, 'uprobe_events'), 'p:dt_9_dtrace/BEGIN /lib/x.so:0x10\n');
    expect(new SdtProvider(root).list().map((p) => p.module)).toEqual(['sched']);
  });
});

describe('proc provider', () => {
  test('probes whose tracepoints exist; exit fires for the group leader only, lwp-exit for every thread', () => {
    const probes = new ProcProvider(fakeTracefs()).list();
    expect(probes.map((p) => p.name)).toEqual(['exec-success', 'exit', 'lwp-exit']);
    const exit = probes.find((p) => p.name === 'exit')!;
    expect(exit.guard).toEqual({ offset: 32, size: 1 });
    expect(probes[0].guard).toBeUndefined();
  });
});

describe('system call numbers', () => {
  test('from unistd_64.h, under the kernel\'s own names', () => {
    const n = parseUnistd('#define __NR_read 0\n#define __NR_stat 4\n#define __NR_umount2 166\n#define __NR_getppid 110\n#define __NR3264_x 9\n');
    expect([...n]).toEqual([['read', 0], ['newstat', 4], ['umount', 166], ['getppid', 110]]);
  });
});

describe('dispatch', () => {
  const probe = (id: number, key: number | null, event = 'sys_enter'): Probe => ({
    id, provider: 'syscall', module: 'vmlinux', func: `f${id}`, name: 'entry',
    attach: { kind: 'rawTracepoint', event }, args: [],
    dispatch: () => (key === null ? null : { event, keyFrom: { kind: 'raw', index: 1 }, key, args: [] }),
  });

  test('many probes on one shared tracepoint share a dispatcher; few attach on their own', () => {
    const many = Array.from({ length: MIN_DISPATCHED }, (_, i) => probe(i + 1, i * 2));
    const groups = planDispatch([...many, probe(100, null), probe(101, 5, 'sys_exit')]);
    expect(groups).toHaveLength(1);
    expect(groups[0].event).toBe('sys_enter');
    expect(groups[0].keys.get(2)).toBe(2);
    expect(groups[0].keys.has(100)).toBe(false);
    expect(planDispatch(many.slice(1))).toEqual([]);
  });

  test('probes enabled by the same clauses share one program; each gets its own values and slot', () => {
    const probes = Array.from({ length: 10 }, (_, i) => probe(i + 1, 100 + i));
    const maps: string[] = [];
    const updates: Array<[number, number, number[]]> = [];
    const plan = new DispatchPlan(probes, (o) => (maps.push(o.name), maps.length), (fd, key, value) => {
      const words = Array.from({ length: value.length / 4 }, (_, i) => value.readUInt32LE(4 * i));
      updates.push([fd, key.readUInt32LE(0), words]);
    });
    const mem = { probeInfo: 64 } as never;
    const values = (p: Probe) => ({ id: p.id, strings: { prov: 1, mod: 2, func: 10 + p.id, name: 3 }, epids: [p.id * 2] });
    let programs = 0;
    for (const p of probes) {
      const clauses = p.id === 5 ? [0, 1] : [0];
      if (plan.reuse(p, clauses, values(p))) continue;
      const t = plan.translatorFor(p, clauses.length, values(p).epids, mem, () => () => {});
      expect(t?.shared.info).toBe(64);
      plan.adopt(p, clauses, 1000 + ++programs, values(p));
    }
    expect(programs).toBe(2); // one for the ten probes' common clause, one for probe 5's two
    expect(maps).toEqual(['dt_dispatch', 'dt_probeinfo', 'dt_probeinfo']);
    // probe 3: its info words (prov, mod, func, name, id, epid) under its key, and its program slot
    expect(updates).toContainEqual([2, 102, [1, 2, 13, 3, 3, 6]]);
    expect(updates).toContainEqual([1, 102, [1001]]);
    expect(updates).toContainEqual([1, 104, [1002]]);
    expect(plan.dispatchers()).toHaveLength(1);
  });
});
