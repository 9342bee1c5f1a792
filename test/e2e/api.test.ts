// The library API (the package's main entry, src/api/) from a TypeScript program: compile, run
// against a workload on the real kernel, receive typed records and typed aggregations with exact
// values, and release every kernel object on close().
import { afterEach, describe, expect, test } from 'vitest';
import { readdirSync, readlinkSync } from 'node:fs';
import { DTrace, DTraceCompileError, DTraceError, type Aggregation, type ProbeRecord, type TraceRecord } from '../../src/api/index.js';
import { kernelUnavailable } from '../helpers/run.js';

const skip = kernelUnavailable();
/** This process's kernel tracing objects: BPF maps and programs, perf events (uprobes among them). */
const tracingFds = () => readdirSync('/proc/self/fd').filter((fd) => {
  try {
    return /^anon_inode:(bpf-|\[perf_event\])/.test(readlinkSync(`/proc/self/fd/${fd}`));
  } catch {
    return false;
  }
}).length;

let handle: DTrace | null = null;
afterEach(() => {
  handle?.close();
  handle = null;
});

describe.skipIf(skip)(`library API${skip ? ` (skipped: ${skip})` : ''}`, () => {
  test('BEGIN, a system call workload, tick and END: typed records and aggregations', async () => {
    const fdsBefore = tracingFds();
    const dt = (handle = DTrace.open());
    const program = dt.compile(`
      BEGIN { trace("hello"); printf("%d %s\\n", 42, "ok"); }
      syscall::getppid:entry /pid == $1/ { @calls[probefunc] = count(); @total = sum(2); @sizes = quantize(8); }
      tick-50ms /++ticks == 4/ { exit(3); }
      END { trace(ticks); }
    `, { args: [String(process.pid)] });
    // The clauses' descriptions as written (a missing field is empty, as in DTrace).
    expect(program.clauses).toEqual([':::BEGIN', 'syscall::getppid:entry', ':::tick-50ms', ':::END']);
    expect(dt.go(program)).toEqual([1, 1, 1, 1]);
    expect(tracingFds()).toBeGreaterThan(fdsBefore + 4); // maps, programs, perf events
    // The workload: process.ppid calls getppid(2) each time it is read.
    for (let i = 0; i < 7; i++) void process.ppid;

    const records: TraceRecord[] = [];
    for await (const r of dt.records()) records.push(r);
    const probes = records.filter((r): r is ProbeRecord => r.type === 'probe');
    expect(records.length).toBe(probes.length); // no faults, no drops

    const begin = probes[0];
    expect(begin.probe).toEqual({ id: 1, provider: 'dtrace', module: '', function: '', name: 'BEGIN' });
    expect(typeof begin.cpu).toBe('number');
    expect(typeof begin.timestamp).toBe('bigint');
    expect(begin.actions).toEqual([
      { action: 'trace', value: 'hello' },
      { action: 'printf', format: '%d %s\n', args: [42n, 'ok'], text: '42 ok\n' },
    ]);
    const tick = probes[1];
    expect(tick.probe).toMatchObject({ provider: 'profile', name: 'tick-50ms' });
    expect(tick.actions).toEqual([{ action: 'exit', status: 3 }]);
    const end = probes[2];
    expect(end.probe).toMatchObject({ provider: 'dtrace', name: 'END' });
    expect(end.actions).toEqual([{ action: 'trace', value: 4n }]);
    expect(probes.length).toBe(3);
    expect(dt.exitStatus).toBe(3);

    const aggs: Aggregation[] = dt.aggregations();
    expect(aggs).toEqual([
      { name: 'calls', function: 'count', entries: [{ keys: ['getppid'], value: 7n }] },
      { name: 'total', function: 'sum', entries: [{ keys: [], value: 14n }] },
      {
        name: 'sizes', function: 'quantize',
        entries: [{ keys: [], buckets: [{ value: 4n, count: 0n }, { value: 8n, count: 7n }, { value: 16n, count: 0n }] }],
      },
    ]);
    dt.close();
    dt.close(); // twice is harmless
    expect(dt.aggregations()).toEqual([]);
    // Every map, program and perf event of the run was a file descriptor of this process.
    expect(tracingFds()).toBe(fdsBefore);
  });

  test('stop() ends a run that has no exit(): END fires and its records come last', async () => {
    const dt = (handle = DTrace.open());
    dt.go(dt.compile('profile:::tick-20ms { @n = count(); } END { printf("end"); }'));
    setTimeout(() => dt.stop(), 300);
    const names: string[] = [];
    for await (const r of dt.records()) if (r.type === 'probe') names.push(r.probe.name);
    expect(names).toEqual(['END']);
    const [n] = dt.aggregations();
    expect(n.function).toBe('count');
    expect(n.entries[0].value).toBeGreaterThanOrEqual(5n);
    expect(dt.exitStatus).toBeNull();
  });

  test('probe listing, compile errors with their tags, and DTrace\'s refusals', () => {
    const dt = (handle = DTrace.open());
    expect(dt.listProbes('dtrace:::BEGIN')).toEqual([{ id: 1, provider: 'dtrace', module: '', function: '', name: 'BEGIN' }]);
    expect(dt.listProbes('syscall::getppid:').map((p) => p.name)).toEqual(['entry', 'return']);
    expect(dt.listProbes().length).toBeGreaterThan(100);

    const err = (f: () => unknown) => { try { f(); } catch (e) { return e; } throw new Error('no error'); };
    const syntax = err(() => dt.compile('BEGIN { trace(x + ); }'));
    expect(syntax).toBeInstanceOf(DTraceCompileError);
    expect(syntax).toMatchObject({ message: 'failed to compile script program: line 1: syntax error near ")"', tag: 'D_SYNTAX', line: 1 });
    expect(err(() => dt.compile('BEGIN', { kind: 'probes', options: { strsize: 'x' } }))).toMatchObject({ message: 'failed to set -x strsize: Invalid value for specified option' });
    expect(err(() => dt.go(dt.compile('BEGIN { raise(9); }')))).toMatchObject({ message: 'could not enable tracing: Destructive actions not allowed' });
    const none = err(() => dt.compile('syscall::no_such_call:entry', { kind: 'probes' }));
    expect(none).toBeInstanceOf(DTraceError);
    expect(none).toMatchObject({
      message: 'invalid probe specifier syscall::no_such_call:entry: probe description syscall::no_such_call:entry does not match any probes',
      tag: 'D_PDESC_ZERO',
    });
    // Under zdefs a program may match nothing: it runs, and stop() ends it.
    expect(dt.go(dt.compile('syscall::no_such_call:entry', { kind: 'probes', options: { zdefs: true } }))).toEqual([0]);
    dt.stop();
  });
});
