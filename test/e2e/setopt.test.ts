// setopt() while tracing runs: options change from the record that sets them on, under the text
// output and under -x oformat=json (the corpus has the BEGIN-only cases: cons-setopt-*.d).
import { describe, expect, test } from 'vitest';
import { dtrace, kernelUnavailable } from '../helpers/run.js';

const skip = kernelUnavailable();

describe.skipIf(skip)(`setopt()${skip ? ` (skipped: ${skip})` : ''}`, () => {
  test('quiet set by a later firing stops the probe lines from then on', () => {
    const r = dtrace(['-x', 'cpu=0', '-n',
      'tick-20ms { n++; printf("n=%d", n); } tick-20ms /n == 2/ { setopt("quiet"); } tick-20ms /n == 4/ { exit(0); }']);
    expect(r.status, r.stderr).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines[0]).toMatch(/^CPU\s+ID\s+FUNCTION:NAME$/);
    expect(lines[1]).toMatch(/^\s+0\s+\d+\s+:tick-20ms n=1$/);
    expect(lines[2]).toMatch(/^\s+0\s+\d+\s+:tick-20ms n=2$/);
    // The setopt() record's own probe line is printed before quiet takes effect; its newline is not.
    expect(lines[3]).toMatch(/^\s+0\s+\d+\s+:tick-20ms n=3n=4$/);
    // dtrace's closing newline ends that line.
    expect(lines.slice(4)).toEqual(['']);
  });

  test('under oformat=json the option applies and a failure goes to stderr, outside the document', () => {
    const r = dtrace(['-x', 'oformat=json', '-n',
      'BEGIN { @a["x"] = count(); @a["y"] = count(); @a["y"] = count(); setopt("aggsortrev"); setopt("nosuch", "2"); printa(@a); exit(0); }']);
    expect(r.status, r.stderr).toBe(0);
    const doc = JSON.parse(r.stdout);
    const out = doc.dtrace.probes[0].output;
    expect(out[0]['aggregation-data'].map((e: { keys: { value: string }[] }) => e.keys[0].value)).toEqual(['y', 'x']);
    expect(r.stderr).toContain(
      'dtrace: error on enabled probe ID 1 (ID 1: dtrace:::BEGIN): couldn\'t set option "nosuch" to "2": Invalid option name\n\n');
  });
});
