// dtrace(1)'s command line as a user meets it: usage errors, every option and its bad values,
// macro arguments, executable D scripts run from the shell, -c/-p processes and signals.
// The option and usage checks need no kernel; the rest runs on the real kernel.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DTRACE, ROOT, dtrace, dtraceAsync, gcc, kernelUnavailable } from '../helpers/run.js';
import { USAGE } from '../../src/cli/usage.js';
import { OptionError, isKnownOption, optionNames, parseOptionValue } from '../../src/options.js';
import { parseArgs } from '../../src/cli/args.js';
import { commandWords } from '../../src/cli/process.js';

let work = '';
beforeAll(() => {
  work = mkdtempSync(path.join(tmpdir(), 'dtrace-cli-'));
});
afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

function script(name: string, text: string, mode = 0o644): string {
  const p = path.join(work, name);
  writeFileSync(p, text);
  chmodSync(p, mode);
  return p;
}

/** A pid no process has. */
function freePid(): number {
  const max = Number(readFileSync('/proc/sys/kernel/pid_max', 'utf8'));
  for (let pid = max - 1; ; pid--) {
    try {
      readFileSync(`/proc/${pid}/stat`);
    } catch {
      return pid;
    }
  }
}

describe('start-up', () => {
  test('a built tree starts from its V8 snapshot, and falls back to dist/ under NODE_OPTIONS', () => {
    // scripts/bundle.mjs (run by npm test) made the snapshot for this tree and this node.
    expect(readFileSync(path.join(ROOT, 'dist/cli/dtrace.blob.root'), 'utf8').trim()).toBe(ROOT);
    const traced = (env: NodeJS.ProcessEnv) => spawnSync('sh', ['-x', DTRACE, '-V'], { encoding: 'utf8', env: { ...process.env, ...env } });
    const snap = traced({ NODE_OPTIONS: '' });
    expect(snap.stdout).toBe('dtrace: Sun D 1.13\n');
    expect(snap.stderr).toMatch(/exec \S*node --snapshot-blob \S*\/dist\/cli\/dtrace\.blob -- -V/);
    const plain = traced({ NODE_OPTIONS: '--max-old-space-size=512' });
    expect(plain.stdout).toBe('dtrace: Sun D 1.13\n');
    expect(plain.stderr).toMatch(/exec \S*node \S*\/bin\/dtrace\.mjs -V/);
  });

  test('node starts without NODE_EXTRA_CA_CERTS; -c commands still get it, set or empty', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'dtrace-env-'));
    try {
      const script = path.join(dir, 'env.sh');
      writeFileSync(script, '#!/bin/sh\necho "certs=[${NODE_EXTRA_CA_CERTS-unset}] saved=[${DTRACE_NODE_EXTRA_CA_CERTS-unset}]"\n');
      chmodSync(script, 0o755);
      const run = (certs: string | undefined) => {
        const env: NodeJS.ProcessEnv = { ...process.env, NODE_OPTIONS: '' };
        if (certs === undefined) delete env.NODE_EXTRA_CA_CERTS;
        else env.NODE_EXTRA_CA_CERTS = certs;
        return spawnSync('sh', ['-x', DTRACE, '-q', '-c', script, '-n', 'END {}'], { encoding: 'utf8', env });
      };
      const set = run('/nonexistent/ca.pem');
      // node would warn that it cannot read the bundle, had it been given it
      expect(set.stderr).not.toMatch(/Warning|extra certs/i);
      expect(set.stderr).toMatch(/unset NODE_EXTRA_CA_CERTS/);
      // (dtrace's blank line at the end follows the command's output, as in DTrace for Linux)
      expect(set.stdout).toBe('certs=[/nonexistent/ca.pem] saved=[unset]\n\n');
      expect(run('').stdout).toBe('certs=[] saved=[unset]\n\n');
      expect(run(undefined).stdout).toBe('certs=[unset] saved=[unset]\n\n');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('usage', () => {
  test('no arguments: the usage on stderr, exit 2', () => {
    const r = dtrace([]);
    expect(r.stderr).toBe(USAGE);
    expect(r.stdout).toBe('');
    expect(r.status).toBe(2);
  });

  test('--help: the usage on stdout, exit 0', () => {
    const r = dtrace(['--help']);
    expect(r.stdout).toBe(USAGE);
    expect(r.status).toBe(0);
    for (const letter of 'aAbcCDefFGhHiIlLmnoOpPqsSUvVwxXZ') expect(USAGE).toContain(`\t-${letter}  `);
  });

  test('an unknown option: getopt\'s message, the usage, exit 2', () => {
    const r = dtrace(['-k', '-n', 'BEGIN']);
    expect(r.stderr).toBe(`dtrace: illegal option -- k\n${USAGE}`);
    expect(r.status).toBe(2);
  });

  test('an option without its argument, exit 2', () => {
    const r = dtrace(['-q', '-n']);
    expect(r.stderr).toBe(`dtrace: option requires an argument -- n\n${USAGE}`);
    expect(r.status).toBe(2);
  });

  test('-V prints the D API version', () => {
    const r = dtrace(['-V']);
    expect(r.stdout).toBe('dtrace: Sun D 1.13\n');
    expect(r.status).toBe(0);
    // "This is DTrace M.m.u" is the D version, as __SUNW_D_VERSION encodes it (-C).
    expect(dtrace(['-V', '-v']).stdout).toMatch(/^dtrace: Sun D 1\.13\nThis is DTrace 1\.13\.0\nThis is node-dtrace \d+\.\d+\.\d+/);
  });

  test('only one of -A -G -h -l -V', () => {
    const r = dtrace(['-l', '-V']);
    expect(r.stderr).toBe('dtrace: only one of the [-AGhlV] options can be specified at a time\n');
    expect(r.status).toBe(2);
  });

  test('-a and -A are refused with the reason', () => {
    for (const opt of ['-a', '-A']) {
      const r = dtrace([opt, '-n', 'BEGIN']);
      expect(r.stderr).toBe(`dtrace: ${opt}: anonymous tracing is not available on Linux: it needs the Solaris DTrace driver, which keeps enablings from boot on\n`);
      expect(r.status).toBe(1);
    }
  });

  test('-64 is the data model dtrace uses; -32 is refused; -3x and -6x are illegal options', () => {
    const r = dtrace(['-32', '-n', 'BEGIN']);
    expect(r.stderr).toBe('dtrace: -32: 32-bit D programs are not supported: this dtrace compiles for the 64-bit data model of the kernel it runs on\n');
    expect(r.status).toBe(1);
    for (const [opt, shown] of [['-33', '33'], ['-63', '63']]) {
      const bad = dtrace([opt, '-n', 'BEGIN']);
      expect(bad.stderr).toBe(`dtrace: illegal option -- ${shown}\n${USAGE}`);
      expect(bad.status).toBe(2);
    }
    const ok = dtrace(['-64', '-e', '-n', 'BEGIN { trace(sizeof(long)); }']);
    expect(ok.stderr).toBe('');
    expect(ok.status).toBe(0);
  });

  test('-B is not valid with -G, -h, -l or -o', () => {
    for (const opt of [['-G'], ['-h'], ['-l']]) {
      const r = dtrace(['-B', ...opt, '-n', 'BEGIN']);
      expect(r.stderr).toBe('dtrace: -B not valid in combination with [-AGl] options\n');
      expect(r.status).toBe(2);
    }
    const r = dtrace(['-B', '-o', path.join(work, 'b.out'), '-n', 'BEGIN']);
    expect(r.stderr).toBe('dtrace: -B not valid in combination with -o option\n');
    expect(r.status).toBe(2);
  });

  test('-G and -h need a program, and -h an output name when it cannot name one after a script', () => {
    for (const opt of ['-G', '-h']) {
      const r = dtrace([opt]);
      expect(r.stderr).toBe(`dtrace: ${opt} requires one or more scripts or enabling options\n`);
      expect(r.status).toBe(2);
    }
    const r = dtrace(['-h', '-n', 'BEGIN']);
    expect(r.stderr).toBe('dtrace: -h requires an output file if no scripts are specified\n');
    expect(r.status).toBe(2);
  });

  test('no program', () => {
    const r = dtrace(['-q']);
    expect(r.stderr).toBe('dtrace: no probes specified\n');
    expect(r.status).toBe(1);
  });

  test('a missing script file', () => {
    const r = dtrace(['-s', 'no/such/script.d']);
    expect(r.stderr).toBe('dtrace: failed to open no/such/script.d: No such file or directory\n');
    expect(r.status).toBe(1);
  });

  test('-o to a file that cannot be opened', () => {
    const r = dtrace(['-o', '/no/such/dir/out.txt', '-n', 'BEGIN']);
    expect(r.stderr).toBe("dtrace: failed to open output file '/no/such/dir/out.txt': No such file or directory\n");
    expect(r.status).toBe(1);
    const dir = dtrace(['-o', '/tmp', '-n', 'BEGIN']);
    expect(dir.stderr).toBe("dtrace: failed to open output file '/tmp': Is a directory\n");
    expect(dir.status).toBe(1);
  });
});

describe('options', () => {
  test('a script that never ends (-s /dev/zero) is refused once past 64 MiB, not read into memory', () => {
    const r = dtrace(['-s', '/dev/zero'], { timeoutMs: 30000 });
    expect(r.stderr).toBe('dtrace: failed to open /dev/zero: File too large\n');
    expect(r.status).toBe(1);
  });

  test('-L: a directory whose name ends in .d is not a library file', () => {
    const lib = path.join(work, 'lib-with-dir');
    mkdirSync(path.join(lib, 'x.d'), { recursive: true });
    writeFileSync(path.join(lib, 'ok.d'), 'inline int LIBVAL = 7;\n');
    const r = dtrace(['-L', lib, '-e', '-n', 'BEGIN { trace(LIBVAL); }']);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
  });

  test('an unknown -x option: Invalid option name, exit 1', () => {
    const r = dtrace(['-x', 'nosuchopt', '-n', 'BEGIN']);
    expect(r.stderr).toBe('dtrace: failed to set -x nosuchopt: Invalid option name\n');
    expect(r.stdout).toBe('');
    expect(r.status).toBe(1);
    expect(dtrace(['-x', 'nosuchopt=3', '-n', 'BEGIN']).stderr).toBe('dtrace: failed to set -x nosuchopt: Invalid option name\n');
  });

  test('bad values: Invalid value for specified option, exit 1', () => {
    const cases: [string[], string][] = [
      [['-x', 'bufsize=4mb'], '-x bufsize'],
      [['-x', 'bufsize=-1'], '-x bufsize'],
      [['-xstrsize=lots'], '-x strsize'],
      [['-b', '12q'], '-b 12q'],
      [['-x', 'switchrate=10parsecs'], '-x switchrate'],
      [['-x', 'bufpolicy=wrap'], '-x bufpolicy'],
      [['-x', 'quiet=maybe'], '-x quiet'],
      [['-x', 'errtags=1'], '-x errtags'],
      [['-x', 'nspec=two'], '-x nspec'],
      [['-X', 'q'], '-X q'],
    ];
    for (const [args, shown] of cases) {
      const r = dtrace([...args, '-n', 'BEGIN']);
      expect(r.stderr, args.join(' ')).toBe(`dtrace: failed to set ${shown}: Invalid value for specified option\n`);
      expect(r.status).toBe(1);
    }
  });

  test('every documented option is known, with its kind of value', () => {
    for (const name of ['aggrate', 'aggsize', 'aggsortkey', 'aggsortkeypos', 'aggsortpos', 'aggsortrev', 'argref',
      'bufpolicy', 'bufresize', 'bufsize', 'cleanrate', 'cpp', 'cpphdrs', 'cpppath', 'cpu', 'defaultargs', 'define',
      'destructive', 'dynvarsize', 'errtags', 'flowindent', 'grabanon', 'incdir', 'jstackframes', 'jstackstrsize',
      'libdir', 'nspec', 'quiet', 'rawbytes', 'specsize', 'stackframes', 'stackindent', 'statusrate', 'stdc', 'strsize',
      'switchrate', 'undef', 'ustackframes', 'version', 'zdefs']) expect(isKnownOption(name), name).toBe(true);
    expect(optionNames().length).toBeGreaterThan(60);
    expect(parseOptionValue('bufsize', '4m')).toEqual(['bufsize', String(4 << 20)]);
    expect(parseOptionValue('bufsize', '0x10K')).toEqual(['bufsize', String(16 << 10)]);
    expect(parseOptionValue('switchrate', '10hz')).toEqual(['switchrate', '100000000']);
    expect(parseOptionValue('switchrate', '5ms')).toEqual(['switchrate', '5000000']);
    expect(parseOptionValue('cleanrate', '2')).toEqual(['cleanrate', '2']); // a bare rate is nanoseconds, as in DTrace
    expect(parseOptionValue('quiet', null)).toEqual(['quiet', 'set']);
    expect(parseOptionValue('quiet', 'no')).toEqual(['quiet', 'unset']);
    expect(parseOptionValue('quiet', 'ON')).toEqual(['quiet', 'set']);
    expect(parseOptionValue('nspec', '4')).toEqual(['nspec', '4']);
    expect(parseOptionValue('zdefs', null)).toEqual(['zdefs', 'set']);
    expect(parseOptionValue('bufpolicy', 'ring')).toEqual(['bufpolicy', 'ring']);
    expect(parseOptionValue('version', '1.13')).toEqual(['version', '1.13']);
    expect(() => parseOptionValue('version', 'latest')).toThrow(OptionError);
    expect(() => parseOptionValue('cpppath', null)).toThrow(OptionError);
    expect(() => parseOptionValue('bufsize', null)).toThrow('failed to set -x bufsize: Invalid value for specified option');
  });

  test('arguments split as getopt splits them', () => {
    expect(parseArgs(['-qn', 'BEGIN', 'a', '-xquiet', '-b', '4m', 'b', '--', '-c'])).toEqual({
      options: [{ letter: 'q' }, { letter: 'n', value: 'BEGIN' }, { letter: 'x', value: 'quiet' }, { letter: 'b', value: '4m' }],
      operands: ['a', 'b', '-c'],
      help: false,
    });
    expect(commandWords('  ./w\t7  3 ')).toEqual(['./w', '7', '3']);
  });
});

const skip = kernelUnavailable();

describe.skipIf(skip)(`on the kernel${skip ? ` (skipped: ${skip})` : ''}`, () => {
  let w = '';
  let bin = '';
  beforeAll(() => {
    w = path.join(work, 'w');
    gcc(path.join(ROOT, 'test/e2e/progs/w.c'), w);
    // dtrace on PATH as `npm link` puts it there.
    bin = path.join(work, 'bin');
    mkdirSync(bin);
    symlinkSync(DTRACE, path.join(bin, 'dtrace'));
  });

  test("-c: counts exactly the command's getppid calls, then ends when it exits", () => {
    const r = dtrace(['-qn', 'syscall::getppid:entry /pid == $target/ { @ = count(); }', '-c', './w 7'], { cwd: work });
    expect(r.stderr).toBe('');
    expect(r.stdout.trim()).toBe('7');
    expect(r.stdout.startsWith('\n')).toBe(true);
    expect(r.status).toBe(0);
  });

  test('-c: $target is the command\'s pid, and dtrace says when it has exited', () => {
    const r = dtrace(['-n', 'BEGIN { printf("%d", $target); }', '-c', `${w} 1`]);
    const pid = /:BEGIN (\d+)/.exec(r.stdout)?.[1];
    expect(pid).toBeDefined();
    expect(r.stderr).toBe(`dtrace: description 'BEGIN ' matched 1 probe\ndtrace: pid ${pid} has exited\n`);
    expect(r.status).toBe(0);
  });

  test('-c: a command that fails is reported with its status', () => {
    const r = dtrace(['-n', 'BEGIN { printf("%d", $target); }', '-c', `${w} 0 3`]);
    const pid = /:BEGIN (\d+)/.exec(r.stdout)?.[1];
    expect(r.stderr).toContain(`dtrace: pid ${pid} exited with status 3\n`);
    expect(r.status).toBe(0);
  });

  test('-c: several commands; $target is the first; dtrace ends when all have exited', () => {
    const r = dtrace(['-qn', 'syscall::getppid:entry /execname == "w"/ { @[pid == $target ? "first" : "other"] = count(); }',
      '-c', `${w} 3`, '-c', `${w} 4`]);
    expect(r.stdout).toMatch(/ first +3\n/);
    expect(r.stdout).toMatch(/ other +4\n/);
    expect(r.status).toBe(0);
  });

  test('-c: a command that does not exist', () => {
    const r = dtrace(['-c', './no-such-command 1', '-n', 'BEGIN']);
    expect(r.stderr).toBe('dtrace: failed to execute ./no-such-command: No such file or directory\n');
    expect(r.status).toBe(1);
  });

  test('-b larger than the kernel can give: lowered, and said so (bufresize=auto); refused under bufresize=manual', () => {
    const r = dtrace(['-x', 'cpu=0', '-b', '1t', '-qn', 'BEGIN { trace(1); exit(0); }']);
    expect(r.stdout).toBe('1\n');
    expect(r.stderr).toMatch(/^dtrace: buffer size lowered to \d+[kmg]\n$/);
    expect(r.status).toBe(0);
    const m = dtrace(['-x', 'cpu=0', '-x', 'bufresize=manual', '-b', '1t', '-qn', 'BEGIN { trace(1); exit(0); }']);
    expect(m.stderr).toBe('dtrace: could not enable tracing: bufsize: Cannot allocate memory\n');
    expect(m.status).toBe(1);
  });

  test('-p: traces a running process and ends when it exits', async () => {
    const sleeper = spawn('sleep', ['3'], { stdio: 'ignore' });
    const r = dtrace(['-n', 'BEGIN { printf("%d", $target); }', '-p', String(sleeper.pid)]);
    expect(r.stdout).toContain(`:BEGIN ${sleeper.pid}`);
    expect(r.stderr).toBe(`dtrace: description 'BEGIN ' matched 1 probe\ndtrace: pid ${sleeper.pid} has exited\n`);
    expect(r.status).toBe(0);
  });

  test('-p: bad and absent pids', () => {
    const bad = dtrace(['-p', '12x', '-n', 'BEGIN']);
    expect(bad.stderr).toBe('dtrace: invalid pid: 12x\n');
    expect(bad.status).toBe(1);
    const pid = freePid();
    const gone = dtrace(['-p', String(pid), '-n', 'BEGIN']);
    expect(gone.stderr).toBe(`dtrace: failed to grab pid ${pid}: No such process\n`);
    expect(gone.status).toBe(1);
  });

  test('-o to a full device: processing aborted with the reason, exit 1', () => {
    const r = dtrace(['-o', '/dev/full', '-n', 'BEGIN { trace(1); exit(0); }']);
    expect(r.stderr).toBe("dtrace: description 'BEGIN ' matched 1 probe\ndtrace: processing aborted: No space left on device\n");
    expect(r.status).toBe(1);
  });

  test('-p of a kernel thread: a system process, refused', () => {
    const r = dtrace(['-p', '2', '-n', 'BEGIN']); // kthreadd
    expect(r.stderr).toBe('dtrace: failed to grab pid 2: system process\n');
    expect(r.status).toBe(1);
  });

  test('-c of a directory or a device: Permission denied, as execve(2) says', () => {
    for (const file of ['/tmp', '/dev/null']) {
      const r = dtrace(['-c', file, '-n', 'BEGIN']);
      expect(r.stderr).toBe(`dtrace: failed to execute ${file}: Permission denied\n`);
      expect(r.status).toBe(1);
    }
  });

  test('SIGINT: END runs, the aggregations print, exit 0', async () => {
    const d = dtraceAsync(['-qn', 'BEGIN { printf("go\\n"); } syscall::getppid:entry /execname == "w"/ { @ = count(); } END { printf("end\\n"); }']);
    while (!d.out().includes('go\n')) await new Promise((r) => setTimeout(r, 50));
    spawnSync(w, ['100']);
    d.child.kill('SIGINT');
    const r = await d.done;
    expect(r.stdout).toMatch(/^go\n\nend\n\n +100\n/);
    expect(r.status).toBe(0);
  });

  test('SIGTERM ends tracing the same way', async () => {
    const d = dtraceAsync(['-qn', 'BEGIN { printf("go\\n"); } END { printf("end\\n"); }']);
    while (!d.out().includes('go\n')) await new Promise((r) => setTimeout(r, 50));
    d.child.kill('SIGTERM');
    const r = await d.done;
    expect(r.stdout).toBe('go\n\nend\n\n');
    expect(r.status).toBe(0);
  });

  test('a second SIGINT ends dtrace at once', async () => {
    const d = dtraceAsync(['-qn', 'BEGIN { printf("go\\n"); }']);
    while (!d.out().includes('go\n')) await new Promise((r) => setTimeout(r, 50));
    const started = Date.now();
    d.child.kill('SIGINT');
    await new Promise((r) => setTimeout(r, 20)); // two signals, not one coalesced
    d.child.kill('SIGINT');
    const r = await d.done;
    expect(Date.now() - started).toBeLessThan(3000);
    expect(r.signal).toBe(null);
    expect(r.status).toBe(0);
  });

  test('SIGINT while a long program compiles ends dtrace, instead of being lost', async () => {
    // 5,000 clauses on one probe: a fraction of a second to compile, seconds to load
    const clauses = Array.from({ length: 5000 }, (_, i) => `syscall::read:entry /pid == ${i + 1}/ { @[${i + 1}] = count(); }\n`);
    const big = script('big.d', clauses.join(''));
    const d = dtraceAsync(['-s', big]);
    await new Promise((r) => setTimeout(r, 800)); // compiling (or loading) still
    d.child.kill('SIGINT');
    const r = await Promise.race([d.done, new Promise<null>((r) => setTimeout(() => r(null), 40_000))]);
    if (r === null) d.child.kill('SIGKILL');
    expect(r, 'dtrace was still running 40 s after SIGINT').not.toBe(null);
    expect(r!.signal).toBe('SIGINT');
  }, 60_000);

  test('an executable D script run from the shell, dtrace found on PATH', () => {
    const x = script('x.d', '#!/usr/bin/env -S dtrace -qs\nBEGIN { printf("%s %d\\n", $$1, $2); exit(0); }\n', 0o755);
    const r = spawnSync(x, ['hello', '5'], { cwd: work, encoding: 'utf8', env: { ...process.env, PATH: `${bin}:${process.env.PATH}` } });
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe('hello 5\n\n');
    expect(r.status).toBe(0);
  });

  test('an executable D script naming dtrace by its path', () => {
    const y = script('y.d', `#!${DTRACE} -s\n#pragma D option quiet\nBEGIN { printf("%s+%d\\n", $$1, $2); exit(0); }\n`, 0o755);
    const r = spawnSync(y, ['abc', '0x10'], { cwd: work, encoding: 'utf8' });
    expect(r.stdout).toBe('abc+16\n\n');
    expect(r.status).toBe(0);
  });

  test('macro arguments: missing, extraneous, -x defaultargs and -x argref', () => {
    const s = script('args.d', 'BEGIN\n{\n\tprintf("%d [%s]\\n", $1, $$2);\n\texit(0);\n}\n');
    const missing = dtrace(['-qs', s, '3']);
    expect(missing.stderr).toBe(`dtrace: failed to compile script ${s}: line 3: macro argument $$2 is not defined\n`);
    expect(missing.status).toBe(1);
    const defaults = dtrace(['-x', 'defaultargs', '-qs', s]);
    expect(defaults.stdout).toBe('0 []\n\n');
    const extra = dtrace(['-qs', s, '1', 'two', 'three']);
    expect(extra.stderr).toBe(`dtrace: failed to compile script ${s}: line 6: extraneous argument 'three' ($3 is not referenced)\n`);
    expect(extra.status).toBe(1);
    expect(dtrace(['-x', 'argref', '-qs', s, '1', 'two', 'three']).stdout).toBe('1 [two]\n\n');
    const desc = dtrace(['-qn', 'BEGIN { exit(0); }', 'unused']);
    expect(desc.stderr).toBe("dtrace: invalid probe specifier BEGIN { exit(0); }: extraneous argument 'unused' ($1 is not referenced)\n");
  });

  test('macro arguments read as integers as strtoull(3) reads them, typed as literals, and are constants', () => {
    const r = dtrace(['-qn', 'BEGIN { printf("%d %d %d %d %d\\n", $1, sizeof ($1), $2, $3, sizeof ($4)); exit(0); }', '4294967296', '0777', '0x1F', '08']);
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe('4294967296 8 511 31 256\n\n'); // 08 is not octal: a string
    const c = dtrace(['-qn', 'BEGIN { @ = lquantize(3, 0, $1, $2); stack($2); exit(0); }', '10', '1']);
    expect(c.stderr).toBe('');
    expect(c.status).toBe(0);
  });

  test('process macro variables are those of the dtrace process', () => {
    // dtrace is our child: same session and process group, and we are its parent.
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const r = dtrace(['-qn', 'BEGIN { printf("%d %d %d %d %d\\n", $ppid, $pgid, $sid, $uid, $gid); exit(0); }']);
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe(`${process.pid} ${f[2]} ${f[3]} ${process.getuid!()} ${process.getgid!()}\n\n`);
  });

  test('-o appends the trace output to a file', () => {
    const out = path.join(work, 'out.txt');
    for (const word of ['one', 'two']) {
      const r = dtrace(['-o', out, '-qn', `BEGIN { printf("${word}\\n"); exit(0); }`]);
      expect(r.stdout).toBe('');
      expect(r.status).toBe(0);
    }
    expect(readFileSync(out, 'utf8')).toBe('one\n\ntwo\n\n');
  });

  test('-C runs cpp with -D, -U and -I; pragmas and line numbers survive', () => {
    mkdirSync(path.join(work, 'inc'), { recursive: true });
    writeFileSync(path.join(work, 'inc/greet.h'), '#define GREETING "hi"\n');
    const s = script('cpp.d', '#include "greet.h"\n#pragma D option quiet\n#ifdef N\nBEGIN { printf("%s %d\\n", GREETING, N); exit(0); }\n#endif\n#ifdef BROKEN\nBEGIN { trace(1 +); }\n#endif\n');
    const r = dtrace(['-C', '-I', path.join(work, 'inc'), '-D', 'N=42', '-s', s]);
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe('hi 42\n\n');
    const undef = dtrace(['-C', '-I', path.join(work, 'inc'), '-D', 'N=42', '-U', 'N', '-D', 'BROKEN', '-s', s]);
    expect(undef.stderr).toBe(`dtrace: failed to compile script ${s}: line 7: syntax error near ")"\n`);
    expect(undef.status).toBe(1);
    const headers = dtrace(['-C', '-H', '-I', path.join(work, 'inc'), '-D', 'N=1', '-s', s]);
    expect(headers.stderr).toContain('greet.h');
    const noinc = dtrace(['-C', '-s', s]);
    expect(noinc.stderr).toContain(`dtrace: failed to compile script ${s}: Preprocessor failed to process input program\n`);
    expect(noinc.status).toBe(1);
  });

  test('-e compiles and exits; -S shows the DIF; -q and -w', () => {
    const e = dtrace(['-e', '-n', 'BEGIN { trace(1); }']);
    expect(e.stdout).toBe('');
    expect(e.stderr).toBe('');
    expect(e.status).toBe(0);
    expect(dtrace(['-e', '-S', '-n', 'BEGIN { trace(1); }']).stderr).toContain('DIFO');
    const w = dtrace(['-w', '-n', 'BEGIN { exit(0); }']);
    expect(w.stderr).toBe("dtrace: description 'BEGIN ' matched 1 probe\ndtrace: allowing destructive actions\n");
    const q = dtrace(['-w', '-q', '-n', 'BEGIN { exit(0); }']);
    expect(q.stderr).toBe('');
    const xq = dtrace(['-x', 'quiet', '-n', 'BEGIN { exit(0); }']);
    expect(xq.stderr).toBe('');
    expect(xq.stdout).toBe('\n');
  });

  test('-i enables a probe by its id', () => {
    expect(dtrace(['-qi', '1 { printf("begin\\n"); exit(0); }']).stdout).toBe('begin\n\n');
    const bad = dtrace(['-i', '99999']);
    expect(bad.stderr).toBe('dtrace: invalid probe specifier 99999: invalid probe identifier 99999: Unknown probe identifier\n');
    expect(bad.status).toBe(1);
  });

  test('-Z permits descriptions that match nothing', () => {
    const bad = dtrace(['-n', 'nosuch:::', '-n', 'BEGIN { exit(0); }']);
    expect(bad.status).toBe(1);
    const r = dtrace(['-Z', '-n', 'nosuch:::', '-n', 'BEGIN { exit(0); }']);
    expect(r.stderr).toBe("dtrace: description 'nosuch:::' matched 0 probes\ndtrace: description 'BEGIN ' matched 1 probe\n");
    expect(r.status).toBe(0);
  });

  test('-l with -n, -P, -m, -f, -i and -s', () => {
    const header = '   ID   PROVIDER            MODULE                          FUNCTION NAME\n';
    const n = dtrace(['-l', '-n', 'syscall::getppid:entry']);
    expect(n.stdout).toMatch(new RegExp(`^${header}\\s+\\d+\\s+syscall\\s+\\S+\\s+getppid entry\\n$`));
    expect(dtrace(['-l', '-P', 'dtrace']).stdout).toMatch(/ BEGIN\n.* END\n.* ERROR\n$/);
    expect(dtrace(['-l', '-f', 'getppid']).stdout.split('\n').length).toBe(4);
    expect(dtrace(['-l', '-i', '1']).stdout).toMatch(/^ +ID.*\n +1 +dtrace +BEGIN\n$/);
    const s = script('list.d', 'syscall::getppid:entry, syscall::getppid:return { }\nBEGIN { }\n');
    const ls = dtrace(['-l', '-s', s]);
    expect(ls.stdout).toMatch(/getppid entry\n.*getppid return\n.*BEGIN\n$/);
    expect(dtrace(['-l', '-n', 'syscall::get$1:entry', 'ppid']).stdout).toMatch(/getppid entry\n$/);
    const none = dtrace(['-l', '-m', 'nosuchmodule']);
    expect(none.stdout).toBe(header);
    expect(none.stderr).toBe('dtrace: failed to match :nosuchmodule::: No probe matches description\n');
    expect(none.status).toBe(0);
  });

  test('-B: each piece of output as the buffered output handler receives it, without dtrace\'s own', () => {
    const r = dtrace(['-B', '-n', 'BEGIN { printf("a\\nb"); @n[1] = count(); exit(0); }']);
    expect(r.status).toBe(0);
    expect(r.stderr).toBe("dtrace: description 'BEGIN ' matched 1 probe\n");
    const pieces = r.stdout.split('dtrace: >>> Called buffer handler:\n').slice(1);
    expect(r.stdout.startsWith('dtrace: >>> Called buffer handler:\n')).toBe(true);
    expect(pieces.length).toBe(2);
    // The printf record: its text, its probe and its record description.
    expect(pieces[0]).toContain('dtrace:       dtbda_buffered => "a\\nb\0"\n');
    expect(pieces[0]).toContain('dtrace:          dtbda_probe => <non-NULL>\n');
    expect(pieces[0]).toContain('dtrace:        dtpd_provider => "dtrace\0"\n');
    expect(pieces[0]).toContain('dtrace:            dtpd_name => "BEGIN\0"\n');
    expect(pieces[0]).toMatch(/dtrace: {10}dtrd_action => 3\n/); // DTRACEACT_PRINTF
    // The aggregation printed at exit: its text and description, no probe.
    expect(pieces[1]).toMatch(/dtbda_buffered => " +1 +1\\n\0"\n/);
    expect(pieces[1]).toContain('dtrace:          dtbda_probe => <NULL>\n');
    expect(pieces[1]).toContain('dtrace:          dtbda_flags => 0xa (AGGVAL | AGGLAST)\n');
    expect(pieces[1]).toContain('dtrace:           dtagd_name => "n\0"\n');
    // No heading, record prefix or closing newline of dtrace's own.
    expect(r.stdout).not.toContain('FUNCTION:NAME');
    expect(r.stdout.endsWith('dtrace: \n')).toBe(true);
  });

  test('-b, -F, -v and -x options that exist today are honoured', () => {
    // -F lays out the flow column even when quiet, as dtrace(1) does.
    const flow = dtrace(['-b', '64k', '-x', 'switchrate=50hz', '-F', '-qn', 'BEGIN { printf("ok\\n"); exit(0); }']).stdout;
    expect(flow).toMatch(/^CPU FUNCTION {33}\n {2}\d \| :BEGIN {34}ok\n\n$/);
    // strsize characters, as DTrace for Linux keeps them (its output).
    expect(dtrace(['-x', 'strsize=4', '-qn', 'BEGIN { printf("%s\\n", "abcdefgh"); exit(0); }']).stdout).toBe('abcd\n\n');
    const tags = dtrace(['-x', 'errtags', '-n', 'BEGIN { trace(x +); }']);
    expect(tags.stderr).toMatch(/^dtrace: invalid probe specifier BEGIN \{ trace\(x \+\); \}: \[D_SYNTAX\] /);
    expect(dtrace(['-x', 'zdefs', '-n', 'nosuch:::', '-n', 'BEGIN { exit(0); }']).status).toBe(0);
  });

  test('a SIGKILLed dtrace never leaves its -c command stopped', async () => {
    // The command waits, stopped, for dtrace to enable its probes; killed meanwhile, dtrace can
    // run nothing of its own, so the command must die with it (as release() kills it otherwise).
    const name = 'dt-stopped-chk';
    const target = path.join(work, name);
    writeFileSync(target, '#!/bin/sh\nexec sleep 30\n');
    chmodSync(target, 0o755);
    const ours = () => readdirSync('/proc').filter((d) => /^\d+$/.test(d)).flatMap((d) => {
      try {
        const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
        const cmdline = readFileSync(`/proc/${d}/cmdline`, 'utf8');
        return cmdline.includes(name) ? [{ pid: Number(d), state: stat.slice(stat.lastIndexOf(')') + 2)[0] }] : [];
      } catch {
        return [];
      }
    });
    const stopped: number[] = [];
    let killed = 0; // tries that ended by the SIGKILL, dtrace still starting or tracing
    for (let i = 0; i < 20; i++) {
      const ms = 50 + ((i * 37) % 450); // start-up points spread over half a second
      const r = spawnSync('timeout', ['--foreground', '-s', 'KILL', `${ms / 1000}`, DTRACE, '-qn', 'profile-97 /pid == $target/ { @ = count(); }', '-c', target], { stdio: 'ignore' });
      if (r.status === 137) killed++;
      await new Promise((r) => setTimeout(r, 100));
      for (const p of ours()) {
        if (p.state === 'T' || p.state === 't') stopped.push(p.pid);
        try { process.kill(p.pid, 'SIGKILL'); } catch { /* gone */ }
      }
    }
    expect(killed).toBe(20);
    expect(stopped).toEqual([]);
  }, 60_000);

  test('a user without privileges gets DTrace\'s refusal and what Linux needs, not a failed system call', () => {
    // A user of the test's own, running a copy of dtrace it can read (the checkout may be under /root).
    const user = 'dtrace-unpriv';
    if (spawnSync('id', [user]).status !== 0) spawnSync('useradd', ['--system', '--no-create-home', '--shell', '/bin/sh', user]);
    const copy = mkdtempSync(path.join(tmpdir(), 'dtrace-unpriv-'));
    for (const d of ['bin', 'dist', 'lib', 'build/Release', 'node_modules/chevrotain']) {
      mkdirSync(path.dirname(path.join(copy, d)), { recursive: true });
      spawnSync('cp', ['-r', path.join(ROOT, d), path.join(copy, d)]);
    }
    spawnSync('cp', [path.join(ROOT, 'package.json'), copy]);
    spawnSync('chmod', ['-R', 'a+rX', copy]);
    try {
      const r = spawnSync('setpriv', ['--reuid', user, '--regid', user, '--clear-groups', '--reset-env', path.join(copy, 'bin/dtrace'), '-n', 'BEGIN { exit(0); }'], { encoding: 'utf8' });
      expect(r.stderr).toBe('dtrace: failed to initialize dtrace: DTrace requires additional privileges\n' +
        'dtrace: on Linux, tracing needs root, or the capabilities CAP_BPF and CAP_PERFMON and read access to /sys/kernel/tracing\n');
      expect(r.status).toBe(1);
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  });

  test('the destructive-action refusal names -w at a terminal, and keeps DTrace\'s words alone in a pipe', () => {
    const prog = 'BEGIN { system("true"); }';
    const piped = dtrace(['-n', prog]);
    expect(piped.stderr).toBe("dtrace: description 'BEGIN ' matched 1 probe\ndtrace: could not enable tracing: Destructive actions not allowed\n");
    expect(piped.status).toBe(1);
    // script(1) gives dtrace a terminal.
    const tty = spawnSync('script', ['-qec', `${DTRACE} -n '${prog}'`, '/dev/null'], { encoding: 'utf8' });
    expect(tty.stdout.replace(/\r/g, '')).toContain('dtrace: could not enable tracing: Destructive actions not allowed\ndtrace: -w (or #pragma D option destructive) allows them\n');
  });
});
