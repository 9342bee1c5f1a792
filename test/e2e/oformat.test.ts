// -x oformat=json on the real kernel: the whole of stdout is one JSON document in the shape of
// FreeBSD's DTrace structured output ({"dtrace": {"probes": [...]}}), whatever the run printed.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ROOT, dtrace, dtraceAsync, gcc, kernelUnavailable } from '../helpers/run.js';

const skip = kernelUnavailable();
let work = '';
let prog = '';

beforeAll(() => {
  if (skip) return;
  work = mkdtempSync(path.join(tmpdir(), 'dtrace-oformat-'));
  // Its own name: other test files count `getppid` callers at the same time.
  prog = path.join(work, 'ofgetppid');
  gcc(path.join(ROOT, 'test/e2e/progs/getppid.c'), prog);
});
afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

interface Probe {
  timestamp: string;
  cpu: number;
  id: number;
  provider: string;
  module: string;
  function: string;
  name: string;
  output: Record<string, unknown>[];
}
interface Doc {
  dtrace: { probes: Probe[]; aggregations?: { 'aggregation-name': string; 'aggregation-data': Record<string, unknown>[] }[] };
}

/** Run dtrace and parse all of stdout as one JSON document. */
function json(args: string[]): { doc: Doc; stderr: string; status: number | null } {
  const r = dtrace(args);
  let doc: Doc;
  try {
    doc = JSON.parse(r.stdout) as Doc;
  } catch (e) {
    throw new Error(`stdout is not one JSON document (${(e as Error).message}):\n${r.stdout}\nstderr: ${r.stderr}`);
  }
  return { doc, stderr: r.stderr, status: r.status };
}

describe.skipIf(skip)(`oformat${skip ? ` (skipped: ${skip})` : ''}`, () => {
  test('printf, trace() of a string and of an integer: one BEGIN entry with their output items', () => {
    const { doc, status } = json(['-x', 'oformat=json', '-qn', 'BEGIN { printf("%d and %s\\n", 5, "five"); trace("str"); trace(42); exit(0); }']);
    expect(status).toBe(0);
    expect(doc.dtrace.probes).toHaveLength(1);
    const p = doc.dtrace.probes[0];
    expect(p).toMatchObject({ provider: 'dtrace', module: '', function: '', name: 'BEGIN', id: 1 });
    expect(typeof p.cpu).toBe('number');
    expect(Number.isNaN(Date.parse(p.timestamp))).toBe(false);
    // printf: the message, then each argument's raw value; then the two trace() values.
    expect(p.output).toEqual([{ message: '5 and five\n' }, { value: 5 }, { value: 'five' }, { value: 'str' }, { value: 42 }]);
  });

  test('a printf without arguments is followed by a value of 0, as FreeBSD documents', () => {
    const { doc } = json(['-x', 'oformat=json', '-n', 'BEGIN { printf("hello"); exit(0); }']);
    expect(doc.dtrace.probes[0].output).toEqual([{ message: 'hello' }, { value: 0 }]);
  });

  test('-O: the aggregations left at exit, a count() keyed by a string and a quantize() distribution', () => {
    const { doc, status } = json(['-O', '-x', 'oformat=json', '-qn',
      'BEGIN { @c["x"] = count(); @c["x"] = count(); @c["y"] = count(); @q = quantize(100); @q = quantize(3); exit(0); }']);
    expect(status).toBe(0);
    const aggs = doc.dtrace.aggregations!;
    expect(aggs.map((a) => a['aggregation-name'])).toEqual(['c', 'q']);
    // Sorted by value, as the text output is.
    expect(aggs[0]['aggregation-data']).toEqual([
      { keys: [{ value: 'y' }], count: 1 },
      { keys: [{ value: 'x' }], count: 2 },
    ]);
    // The rows the text table shows: one empty bucket either side of the data.
    expect(aggs[1]['aggregation-data']).toEqual([{
      keys: [],
      buckets: [
        { value: 1, count: 0 }, { value: 2, count: 1 }, { value: 4, count: 0 }, { value: 8, count: 0 },
        { value: 16, count: 0 }, { value: 32, count: 0 }, { value: 64, count: 1 }, { value: 128, count: 0 },
      ],
    }]);
  });

  test('without -O the aggregations are not printed at exit; printa() prints them in its probe\'s output', () => {
    const { doc } = json(['-x', 'oformat=json', '-qn', 'BEGIN { @a = sum(7); @b = max(3); } END { printa(@a); }', '-n', 'BEGIN { exit(0); }']);
    expect(doc.dtrace.aggregations).toBeUndefined();
    const end = doc.dtrace.probes.find((p) => p.name === 'END')!;
    expect(end.output).toEqual([{ 'aggregation-name': 'a', 'aggregation-data': [{ keys: [], sum: 7 }] }]);
  });

  test('printa() with a format string gives the same aggregation object as without one (FreeBSD documents one shape)', () => {
    const prog = (printa: string) => `BEGIN { @c["a"] = count(); @c["b"] = count(); @c["b"] = count(); ${printa}; exit(0); }`;
    const formatted = json(['-x', 'oformat=json', '-qn', prog('printa("%s got %@d\\n", @c)')]);
    const plain = json(['-x', 'oformat=json', '-qn', prog('printa(@c)')]);
    expect(formatted.status).toBe(0);
    const data = [{ keys: [{ value: 'a' }], count: 1 }, { keys: [{ value: 'b' }], count: 2 }];
    expect(formatted.doc.dtrace.probes[0].output).toEqual([{ 'aggregation-name': 'c', 'aggregation-data': data }]);
    expect(plain.doc.dtrace.probes[0].output).toEqual(formatted.doc.dtrace.probes[0].output);
    // The text output does use the format.
    expect(dtrace(['-qn', prog('printa("%s got %@d\\n", @c)')]).stdout).toBe('a got 1\nb got 2\n\n');
  });

  test("a real syscall probe's record: its probe name, and the process's calls counted", () => {
    const { doc, status, stderr } = json(['-O', '-x', 'oformat=json', '-n',
      'BEGIN { done = 0; } syscall::getppid:entry /pid == $target/ { @n[probefunc] = count(); } syscall::getppid:entry /pid == $target && !done/ { done = 1; trace(execname); trace(pid); }',
      '-c', `${prog} 5`]);
    expect(stderr).toContain('matched 3 probes');
    expect(status).toBe(0);
    const fired = doc.dtrace.probes.filter((p) => p.provider === 'syscall');
    expect(fired).toHaveLength(1);
    expect(fired[0]).toMatchObject({ module: 'vmlinux', function: 'getppid', name: 'entry' });
    expect(fired[0].output).toEqual([{ value: 'ofgetppid' }, { value: expect.any(Number) }]);
    expect(doc.dtrace.aggregations).toEqual([{ 'aggregation-name': 'n', 'aggregation-data': [{ keys: [{ value: 'getppid' }], count: 5 }] }]);
  });

  test('ended by SIGINT: END runs and the document is still whole', async () => {
    const d = dtraceAsync(['-x', 'oformat=json', '-qn', 'BEGIN { printf("ready"); } END { trace("end"); }']);
    await d.waitFor(/"message":"ready"/);
    d.child.kill('SIGINT');
    const r = await d.done;
    expect(r.status).toBe(0);
    const doc = JSON.parse(r.stdout) as Doc;
    expect(doc.dtrace.probes.map((p) => p.name)).toEqual(['BEGIN', 'END']);
    expect(doc.dtrace.probes[1].output).toEqual([{ value: 'end' }]);
  });

  test('json,pretty and -o: the same document, indented, in the output file', () => {
    const out = path.join(work, 'pretty.json');
    const r = dtrace(['-x', 'oformat=json,pretty', '-o', out, '-qn', 'BEGIN { trace(1); exit(0); }']);
    expect(r.status).toBe(0);
    expect(r.stdout).toBe('');
    const text = readFileSync(out, 'utf8');
    expect(text).toContain('\n  "dtrace": {\n    "probes": [\n');
    expect((JSON.parse(text) as Doc).dtrace.probes[0].output).toEqual([{ value: 1 }]);
  });

  test('xml and html are refused, naming what is supported; an unknown value is invalid', () => {
    for (const style of ['xml', 'html']) {
      const r = dtrace(['-x', `oformat=${style}`, '-n', 'BEGIN { exit(0); }']);
      expect(r.status).toBe(1);
      expect(r.stdout).toBe('');
      expect(r.stderr).toBe(`dtrace: failed to set -x oformat: ${style} output is not supported (supported: json, text)\n`);
    }
    const r = dtrace(['-x', 'oformat=yaml', '-n', 'BEGIN { exit(0); }']);
    expect(r.status).toBe(1);
    expect(r.stderr).toBe('dtrace: failed to set -x oformat: Invalid value for specified option\n');
  });
});
