// -x options (and #pragma D option) as a user meets them: the rates of the trace loop (aggrate,
// statusrate, cleanrate) change when drops are reported and when speculations are free again;
// the other honoured options change what dtrace prints; bad names and values, and options this
// dtrace cannot honour, end with DTrace's "failed to set" message and exit status 1.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { dtrace, kernelUnavailable } from '../helpers/run.js';

let work = '';
beforeAll(() => {
  work = mkdtempSync(path.join(tmpdir(), 'dtrace-options-'));
});
afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

function file(name: string, text: string): string {
  const p = path.join(work, name);
  writeFileSync(p, text);
  return p;
}

/** The report lines of stderr that match `re`, and the sum of the count each begins with. */
function reports(stderr: string, re: RegExp): { lines: number; total: number } {
  const lines = stderr.split('\n').filter((l) => re.test(l));
  return { lines: lines.length, total: lines.reduce((n, l) => n + Number(/^dtrace: (\d+)/.exec(l)?.[1] ?? 0), 0) };
}

describe('bad options', () => {
  const bad = (args: string[], message: string) => {
    const r = dtrace([...args, '-n', 'BEGIN { exit(0); }']);
    expect(r.stderr, args.join(' ')).toBe(`dtrace: ${message}\n`);
    expect(r.status, args.join(' ')).toBe(1);
    expect(r.stdout).toBe('');
  };

  test('an unknown name', () => {
    bad(['-x', 'nosuchoption'], 'failed to set -x nosuchoption: Invalid option name');
    bad(['-x', 'nosuchoption=1'], 'failed to set -x nosuchoption: Invalid option name');
  });

  test('malformed sizes and rates', () => {
    for (const [opt, v] of [['bufsize', '12q'], ['aggsize', 'k'], ['dynvarsize', '-1'], ['strsize', '1.5k'],
      ['switchrate', 'fast'], ['aggrate', '0hz'], ['statusrate', '10parsecs'], ['cleanrate', '']] as const)
      bad(['-x', `${opt}=${v}`], `failed to set -x ${opt}: Invalid value for specified option`);
  });

  test('values a compiler flag or a word list does not take', () => {
    bad(['-x', 'errtags=1'], 'failed to set -x errtags: Invalid value for specified option');
    bad(['-x', 'core=yes'], 'failed to set -x core: Invalid value for specified option');
    bad(['-x', 'aggpercpu=1'], 'failed to set -x aggpercpu: Invalid value for specified option');
    bad(['-x', 'bufpolicy=circular'], 'failed to set -x bufpolicy: Invalid value for specified option');
    bad(['-x', 'late=load'], 'failed to set -x late: Invalid value for specified option');
  });

  test('versions and registers, with their own messages', () => {
    bad(['-x', 'version=1.x'], 'failed to set -x version: Version is not properly formatted or is too large');
    bad(['-x', 'version=99.0'], 'failed to set -x version: Requested version is not supported by compiler');
    bad(['-x', 'iregs=9'], 'failed to set -x iregs: Invalid value for specified option');
    bad(['-x', 'iregs=4'], 'failed to set -x iregs: Insufficient registers to generate code');
  });

  test('options this dtrace cannot honour are refused, saying why', () => {
    bad(['-x', 'grabanon'], 'failed to set -x grabanon: anonymous tracing is not available on Linux: it needs the Solaris DTrace driver, which keeps enablings from boot on');
    bad(['-x', 'evaltime=start'], 'failed to set -x evaltime: Invalid value for specified option');
    bad(['-x', 'linktype=DOF'], 'failed to set -x linktype: dtrace -G writes ELF objects only');
    bad(['-x', 'knodefs'], 'failed to set -x knodefs: unresolved kernel symbols are always an error here');
  });

  test('through #pragma D option, as a compile error of the script', () => {
    const cases: [string, string][] = [
      ['nosuchoption', "failed to set option 'nosuchoption': Invalid option name"],
      ['bufsize=12q', "failed to set option 'bufsize' to '12q': Invalid value for specified option"],
      ['switchrate=fast', "failed to set option 'switchrate' to 'fast': Invalid value for specified option"],
      ['cpu=4096', "failed to set option 'cpu' to '4096': Invalid value for specified option"],
      ['quiet bufsize=1m', 'superfluous arguments specified for #pragma option'],
    ];
    for (const [opt, message] of cases) {
      const p = file('pragma.d', `#pragma D option ${opt}\nBEGIN { exit(0); }\n`);
      const r = dtrace(['-s', p]);
      expect(r.stderr, opt).toBe(`dtrace: failed to compile script ${p}: line 1: ${message}\n`);
      expect(r.status).toBe(1);
    }
  });

  test('accepted values: suffixes, words, and options with nothing to do here', () => {
    for (const args of [['-x', 'bufsize=0x10k'], ['-x', 'aggrate=2hz'], ['-x', 'statusrate=250ms'], ['-x', 'cleanrate=50'],
      ['-x', 'lockmem=unlimited'], ['-x', 'linktype=ELF'], ['-x', 'late=static'], ['-x', 'evaltime=exec'], ['-x', 'evaltime=main'],
      ['-x', 'iregs=8'], ['-x', 'version=1.0'], ['-x', 'bufresize=manual'], ['-x', 'aggpercpu']]) {
      const r = dtrace(['-e', ...args, '-n', 'BEGIN { exit(0); }']);
      expect(r.stderr, args.join(' ')).toBe('');
      expect(r.status, args.join(' ')).toBe(0);
    }
  });
});

describe('compiler options', () => {
  test('-x syslibdir replaces the system D library; -x nolibs loads none', (ctx) => {
    if (skip) return ctx.skip(skip); // it runs BEGIN clauses
    const dir = mkdtempSync(path.join(tmpdir(), 'dtrace-syslib-'));
    writeFileSync(path.join(dir, 'mine.d'), 'inline int FORTY_TWO = 42;\n');
    let r = dtrace(['-qx', `syslibdir=${dir}`, '-n', 'BEGIN { printf("%d\\n", FORTY_TWO); exit(0); }']);
    expect(r.stdout, r.stderr).toBe('42\n\n');
    r = dtrace(['-qx', `syslibdir=${dir}`, '-n', 'BEGIN { printf("%d\\n", SIGINT); exit(0); }']);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('failed to resolve SIGINT: Unknown variable name');
    r = dtrace(['-qn', 'BEGIN { printf("%d\\n", SIGINT); exit(0); }']);
    expect(r.stdout, r.stderr).toBe('2\n\n');
    r = dtrace(['-qx', 'nolibs', '-n', 'BEGIN { printf("%d\\n", SIGINT); exit(0); }']);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('failed to resolve SIGINT: Unknown variable name');
  });

  test('-x libdir adds a D library directory, as -L does', () => {
    const dir = path.join(work, 'lib');
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, 'answer.d'), 'inline int answer = 42;\n');
    const r = dtrace(['-e', '-x', `libdir=${dir}`, '-n', 'BEGIN { trace(answer); }']);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const without = dtrace(['-e', '-n', 'BEGIN { trace(answer); }']);
    expect(without.status).toBe(1);
    expect(without.stderr).toContain('answer');
  });

  test('-x verbose lists the DIF, as -S does', () => {
    const r = dtrace(['-e', '-x', 'verbose', '-n', 'BEGIN { trace(1 + 2); }']);
    const s = dtrace(['-e', '-S', '-n', 'BEGIN { trace(1 + 2); }']);
    expect(r.status).toBe(0);
    expect(r.stderr).toMatch(/^DIFO 0x[0-9a-f]+ returns /m);
    expect(r.stderr).toBe(s.stderr);
  });

  // Oracle DTrace 2.0.1's behaviour: a program of only pragmas and declarations is empty.
  test('-x empty lets a program have no clause; without it that is D_EMPTY', () => {
    const empty = file('empty.d', '#pragma D option bufsize=8k\nint x;\n');
    const refused = dtrace(['-x', 'errtags', '-s', empty]);
    expect(refused.stderr).toBe(`dtrace: failed to compile script ${empty}: [D_EMPTY] line 3: empty D program translation unit\n`);
    expect(refused.status).toBe(1);
    const allowed = dtrace(['-x', 'empty', '-s', empty]);
    expect(allowed.stderr).toBe(`dtrace: script '${empty}' matched 0 probes\ndtrace: no probes matched\n`);
    expect(allowed.status).toBe(1);
    expect(dtrace(['-x', 'errtags', '-n', '']).stderr).toBe('dtrace: invalid probe specifier : [D_EMPTY] empty D program translation unit\n');
  });
});

const skip = kernelUnavailable();

describe.skipIf(skip)(`the trace loop's rates${skip ? ` (skipped: ${skip})` : ''}`, () => {
  // Two seconds of dynamic variable drops: a full variable space refuses 100 stores a second.
  const dynvarDrops = 'tick-100hz { a[timestamp] = 1; } tick-100hz /++n == 200/ { exit(0); }';

  test('statusrate: how often drops are reported', () => {
    const re = /^dtrace: \d+ dynamic variable drops?$/;
    const often = reports(dtrace(['-q', '-x', 'dynvarsize=1k', '-x', 'statusrate=50ms', '-n', dynvarDrops]).stderr, re);
    const dflt = reports(dtrace(['-q', '-x', 'dynvarsize=1k', '-n', dynvarDrops]).stderr, re);
    const seldom = reports(dtrace(['-q', '-x', 'dynvarsize=1k', '-x', 'statusrate=10s', '-n', dynvarDrops]).stderr, re);
    // Every drop is reported whatever the rate; the rate decides in how many reports.
    for (const r of [often, dflt, seldom]) expect(r.total).toBeGreaterThan(100);
    expect(seldom.lines).toBe(1); // only the last status check, once tracing has stopped
    expect(dflt.lines).toBeGreaterThanOrEqual(2); // once a second, and at the end
    expect(dflt.lines).toBeLessThanOrEqual(4);
    expect(often.lines).toBeGreaterThan(10);
  });

  test('aggrate: how often aggregation drops are reported', () => {
    // 1000 new keys a second into room for 1024: drops from the second second on.
    const prog = 'tick-1000hz { @[timestamp] = count(); } tick-1000hz /++n == 2500/ { exit(0); }';
    const re = /^dtrace: \d+ aggregation drops? on CPU \d+$/;
    const often = reports(dtrace(['-q', '-x', 'aggsize=64k', '-x', 'aggrate=100ms', '-n', prog]).stderr, re);
    const seldom = reports(dtrace(['-q', '-x', 'aggsize=64k', '-x', 'aggrate=1min', '-n', prog]).stderr, re);
    for (const r of [often, seldom]) expect(r.total).toBeGreaterThan(500);
    expect(seldom.lines).toBe(1); // the snapshot after tracing stops (the tick fires on one CPU)
    expect(often.lines).toBeGreaterThan(5);
  });

  test('switchrate, when set, is when records are read: even BEGIN\'s exit() waits for it', () => {
    // As in the reference DTrace for Linux (the public suite times `-x switchrate=Nsec`).
    const timed = (args: string[]) => {
      const t0 = Date.now();
      const r = dtrace(args);
      return { ...r, secs: (Date.now() - t0) / 1000 };
    };
    const slow = timed(['-x', 'switchrate=2sec', '-qn', 'BEGIN { printf("begun\\n"); exit(0); }']);
    expect(slow.stdout).toBe('begun\n\n');
    expect(slow.secs).toBeGreaterThanOrEqual(2);
    // Records from a tick wait for the switch too, and all are printed, in order.
    const ticks = timed(['-x', 'switchrate=1sec', '-qn', 'tick-100ms { printf("%d\\n", n++); } tick-100ms /n == 5/ { exit(0); }']);
    expect(ticks.stdout).toBe('0\n1\n2\n3\n4\n\n');
    expect(ticks.secs).toBeGreaterThanOrEqual(1);
  });

  test('cleanrate: a discarded speculation is free again only once the cleaner has run', () => {
    // nspec=1, claimed and discarded 200 times a second: each speculation() until the next
    // cleaning fails as busy.
    const p = file('spec.d', 'tick-200hz { spec = speculation(); }\ntick-200hz /spec/ { discard(spec); }\ntick-200hz /++n == 400/ { exit(0); }\n');
    const re = /^dtrace: \d+ failed speculations? \(available buffer\(s\) still busy\)$/;
    const slow = reports(dtrace(['-q', '-x', 'nspec=1', '-x', 'cleanrate=1hz', '-s', p]).stderr, re);
    const fast = reports(dtrace(['-q', '-x', 'nspec=1', '-x', 'cleanrate=5000hz', '-s', p]).stderr, re);
    // Cleaned once a second, nearly every claim in two seconds fails; cleaned as fast as
    // DTrace allows, few do.
    expect(slow.total).toBeGreaterThan(300);
    expect(fast.total).toBeLessThan(slow.total / 4);
  });
});

describe.skipIf(skip)(`consumer options${skip ? ` (skipped: ${skip})` : ''}`, () => {
  test('-x noresolve prints user stack frames as addresses', () => {
    // sleep is still asleep when its stack is printed, so its mappings can be read.
    const prog = 'syscall::clock_nanosleep:entry /pid == $target/ { ustack(); }';
    const resolved = dtrace(['-q', '-n', prog, '-c', 'sleep 1']);
    const raw = dtrace(['-q', '-x', 'noresolve', '-n', prog, '-c', 'sleep 1']);
    expect(resolved.status, resolved.stderr).toBe(0);
    expect(raw.status, raw.stderr).toBe(0);
    expect(resolved.stdout).toMatch(/^\s+\S+`\S+$/m); // module`function+offset
    const frames = raw.stdout.split('\n').filter((l) => l.trim() !== '');
    expect(frames.length).toBeGreaterThan(0);
    for (const f of frames) expect(f).toMatch(/^\s+0x[0-9a-f]+$/);
  });
});
