// Tracing a fleet (issue 18): a nats-server on 127.0.0.1 (a free port, JetStream in a temporary
// directory, users per role) and three agents a, b, c on this machine; dtrace -x fleet=... as
// their consumer. Counts are exact: each workload makes a known number of getppid calls and the
// programs filter by its pid.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ROOT, dtrace, dtraceAsync, kernelUnavailable, withEnv } from '../helpers/run.js';

const natsServer = ['/usr/sbin/nats-server', '/usr/bin/nats-server'].find((p) => existsSync(p));
const why = kernelUnavailable() ?? (natsServer ? null : 'nats-server is not installed (scripts/setup-system.sh installs it)');

let work = '';
let port = 0;
let server: ChildProcess | undefined;
const agents = new Map<string, { child: ChildProcess; log: () => string }>();
const started: ChildProcess[] = [];

const url = (cred: string) => `nats://${cred}127.0.0.1:${port}`;
const OPS = () => `fleet=${url('ops:opspw@')}`;

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const p = (s.address() as { port: number }).port;
      s.close(() => resolve(p));
    });
    s.on('error', reject);
  });
}

async function until(what: string, ok: () => boolean, ms = 60_000): Promise<void> {
  const start = Date.now();
  while (!ok()) {
    if (Date.now() - start > ms) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** nats-server with the test's configuration (again after a kill: the same port and store). */
async function startServer(): Promise<void> {
  const s = spawn(natsServer!, ['-c', path.join(work, 'nats.conf')], { stdio: ['ignore', 'ignore', 'pipe'] });
  server = s;
  started.push(s);
  let slog = '';
  s.stderr!.on('data', (d) => (slog += d));
  await until('nats-server', () => {
    if (s.exitCode !== null) throw new Error(`nats-server exited: ${slog}`);
    return slog.includes('Server is ready');
  });
}

function startAgent(name: string): Promise<void> {
  const child = spawn(path.join(ROOT, 'bin/dtraced'), ['-n', name, '-x', `fleet=${url('agent:agentpw@')}`], { stdio: ['ignore', 'ignore', 'pipe'] });
  started.push(child);
  let log = '';
  child.stderr!.on('data', (d) => (log += d));
  agents.set(name, { child, log: () => log });
  return until(`agent ${name}`, () => {
    if (child.exitCode !== null) throw new Error(`agent ${name} exited: ${log}`);
    return log.includes('serving');
  });
}

/** A process that waits for `go` to exist, then calls getppid `n` times and exits. */
function workload(n: number): { pid: number; go: () => void; exited: Promise<void> } {
  const go = path.join(work, `go-${Math.random().toString(36).slice(2)}`);
  const child = spawn('python3', ['-c',
    `import os, time\nwhile not os.path.exists(${JSON.stringify(go)}): time.sleep(0.02)\nfor _ in range(${n}): os.getppid()\n`], { stdio: 'ignore' });
  started.push(child);
  return { pid: child.pid!, go: () => writeFileSync(go, ''), exited: new Promise((r) => child.on('close', () => r())) };
}

/** Count a workload's getppid calls per instance with `desc`; ends by SIGINT once it has exited. */
async function countPerInstance(desc: string, n: number, extra: string[] = [], during?: () => Promise<void>, after?: () => Promise<void>) {
  const w = workload(n);
  const d = dtraceAsync(['-x', OPS(), '-n', `${desc} /pid == ${w.pid}/ { @[probeinstance] = count(); }`,
    '-n', 'BEGIN { printf("ready\\n"); }', ...extra]);
  await d.waitFor(/ready/, 90_000);
  if (during) await during();
  w.go();
  await w.exited;
  await new Promise((r) => setTimeout(r, 300));
  if (after) await after();
  d.child.kill('SIGINT');
  return d.done;
}

/** The aggregation's lines: instance -> count. */
function counts(stdout: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const m of stdout.matchAll(/^  (\w+) +(\d+)$/gm)) out[m[1]!] = Number(m[2]);
  return out;
}

describe.skipIf(why)(`a fleet of three agents through NATS${why ? ` (skipped: ${why})` : ''}`, () => {
  beforeAll(async () => {
    work = mkdtempSync(path.join(tmpdir(), 'dtrace-fleet-'));
    port = await freePort();
    writeFileSync(path.join(work, 'nats.conf'), `listen: 127.0.0.1:${port}
jetstream { store_dir: "${work}/js" }
authorization {
  users = [
    { user: agent, password: agentpw }
    { user: ops, password: opspw }
    { user: aonly, password: aonlypw, permissions: {
        publish: { allow: ["dtrace.discover", "dtrace.agent.a.>", "_INBOX.>", "$JS.API.>"] },
        subscribe: { allow: ["_INBOX.>", "dtrace.data.>"] } } }
  ]
}
`);
    await startServer();
    await Promise.all(['a', 'b', 'c'].map(startAgent));
  }, 120_000);

  afterAll(() => {
    for (const c of started.reverse()) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    if (work) rmSync(work, { recursive: true, force: true });
  });

  test('-l shows an INSTANCE column and every instance\'s probe', () => {
    const r = dtrace(['-x', OPS(), '-l', '-n', '*:syscall::getppid:entry']);
    expect(r.stderr).toBe('');
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^ +ID +INSTANCE +PROVIDER +MODULE +FUNCTION NAME$/);
    expect(lines.slice(1).map((l) => l.trim().split(/ +/).slice(1))).toEqual(
      ['a', 'b', 'c'].map((i) => [i, 'syscall', 'vmlinux', 'getppid', 'entry']));
  }, 90_000);

  test('-l -M b lists b\'s probes only, and -l of an unknown instance matches nothing', () => {
    const r = dtrace(['-x', OPS(), '-l', '-M', 'b']);
    const rows = r.stdout.trimEnd().split('\n').slice(1);
    expect(rows.length).toBeGreaterThan(100);
    expect(rows.every((l) => l.trim().split(/ +/)[1] === 'b')).toBe(true);
    expect(rows.some((l) => / getppid entry$/.test(l))).toBe(true);
    const none = dtrace(['-x', OPS(), '-l', '-n', 'zz:syscall::getppid:entry']);
    expect(none.stderr).toBe('dtrace: failed to match zz:syscall::getppid:entry: No probe matches description\n');
  }, 90_000);

  test('*:syscall::getppid:entry counts exactly per instance', async () => {
    const r = await countPerInstance('*:syscall::getppid:entry', 7);
    expect(r.stderr).toMatch(/description '\*:syscall::getppid:entry ' matched 3 probes on 3 instances/);
    expect(counts(r.stdout)).toEqual({ a: 7, b: 7, c: 7 });
    expect(r.status).toBe(0);
  }, 120_000);

  test('a:syscall::getppid:entry traces only a', async () => {
    const r = await countPerInstance('a:syscall::getppid:entry', 5);
    expect(r.stderr).toMatch(/description 'a:syscall::getppid:entry ' matched 1 probe on 1 instance\n/);
    expect(counts(r.stdout)).toEqual({ a: 5 });
  }, 120_000);

  test('records show their instance, and exit() ends every instance with END', async () => {
    const w = workload(1);
    const d = dtraceAsync(['-x', OPS(), '-n', `b:syscall::getppid:entry /pid == ${w.pid}/ { trace(probeinstance); exit(3); }`,
      '-n', 'BEGIN { printf("ready"); }', '-n', 'END { @[probeinstance] = count(); }']);
    await d.waitFor(/ready/, 90_000);
    w.go();
    const r = await d.done;
    expect(r.status).toBe(3);
    expect(r.stdout).toMatch(/^ +\d+ +\d+ +b:getppid:entry +b +$/m);
    expect(counts(r.stdout)).toEqual({ a: 1, b: 1, c: 1 });
  }, 120_000);

  test('drops are reported per instance, naming it: records, aggregations, dynamic variables', async () => {
    // A 4 KB buffer on b against a storm of getppid calls; a 512-byte aggsize on a, dynvarsize on c.
    const n = 100_000;
    const w = workload(n);
    const d = dtraceAsync(['-x', OPS(), '-b', '4k', '-x', 'aggsize=512', '-x', 'dynvarsize=512',
      '-n', `b:syscall::getppid:entry /pid == ${w.pid}/ { trace(arg0); }`,
      '-n', `a:syscall::getppid:entry /pid == ${w.pid}/ { @[timestamp] = count(); }`,
      '-n', `c:syscall::getppid:entry /pid == ${w.pid}/ { x[timestamp] = 1; }`,
      '-n', 'BEGIN { printf("ready\\n"); }', '-n', 'END { trunc(@); }']);
    await d.waitFor(/ready/, 90_000);
    w.go();
    await w.exited;
    await new Promise((r) => setTimeout(r, 1000));
    d.child.kill('SIGINT');
    const r = await d.done;
    expect(r.status).toBe(0);
    const drops = r.stderr.split('\n').filter((l) => / drops?( |$)/.test(l));
    // Every drop line names its instance once; each kind came from the one instance that made it.
    expect(drops.every((l) => /^dtrace: \[[abc]\] \d+ /.test(l))).toBe(true);
    const sum = (re: RegExp) => drops.map((l) => re.exec(l)).reduce((t, m) => t + (m ? Number(m[1]) : 0), 0);
    const lost = sum(/^dtrace: \[b\] (\d+) drops? on CPU \d+$/);
    expect(lost).toBeGreaterThan(0);
    // Nothing is lost silently: b's records and its reported drops are every call.
    expect(r.stdout.split('\n').filter((l) => / b:getppid:entry /.test(l)).length + lost).toBe(n);
    expect(sum(/^dtrace: \[a\] (\d+) aggregation drops? on CPU \d+$/)).toBeGreaterThan(0);
    expect(sum(/^dtrace: \[c\] (\d+) dynamic variable drops?$/)).toBeGreaterThan(0);
    expect(drops.filter((l) => !/\[b\] \d+ drops? on CPU|\[a\] \d+ aggregation|\[c\] \d+ dynamic/.test(l))).toEqual([]);
  }, 150_000);

  test('failed speculations are reported per instance, naming it', () => {
    // Two speculations at once with nspec=1: the second fails on every instance, every time.
    const r = dtrace(['-x', OPS(), '-qn', 'a:profile:::tick-100ms, b:profile:::tick-100ms /i++ < 5/ { self->s = speculation(); self->t = speculation(); }',
      '-n', 'tick-100ms /self->s/ { discard(self->s); self->s = 0; }', '-n', 'a:profile:::tick-1s { exit(0); }']);
    expect(r.status).toBe(0);
    const failed = r.stderr.split('\n').filter((l) => /failed speculation/.test(l));
    for (const inst of ['a', 'b']) expect(failed.some((l) => l.startsWith(`dtrace: [${inst}] `))).toBe(true);
    expect(failed.filter((l) => !/^dtrace: \[[ab]\] \d+ failed speculations? \((available buffer\(s\) still busy|no speculative buffer available)\)$/.test(l))).toEqual([]);
  }, 90_000);

  test('speculations: each instance\'s are its own, and a discarded one is free again', () => {
    // a and b both hold a record in their speculation 1; a commits it, b discards it later.
    const held = dtrace(['-x', OPS(), '-qn', `int done;
a:profile:::tick-200ms, b:profile:::tick-200ms /!s/ { s = speculation(); }
a:profile:::tick-200ms, b:profile:::tick-200ms /s && !done/ { speculate(s); printf("%s speculated\\n", probeinstance); }
a:profile:::tick-200ms, b:profile:::tick-200ms /s/ { done = 1; }
a:profile:::tick-1s /s/ { commit(s); s = 0; }
b:profile:::tick-1500ms /s/ { discard(s); s = 0; }
a:profile:::tick-2s { exit(0); }`]);
    expect(held.stdout).toBe('a speculated\n\n');
    expect(held.status).toBe(0);
    // nspec=1: a discarded speculation comes back only through the consumer's cleaner.
    const reused = dtrace(['-x', OPS(), '-qn', 'a:profile:::tick-100ms /i++ < 10/ { self->s = speculation(); printf("%d\\n", self->s); }',
      '-n', 'a:profile:::tick-100ms /self->s/ { discard(self->s); self->s = 0; }', '-n', 'a:profile:::tick-3s { exit(0); }']);
    expect(reused.stdout).toBe('1\n'.repeat(10) + '\n');
    expect(reused.stderr).not.toMatch(/failed speculation/);
  }, 90_000);

  test('a buffer smaller than a record is refused as locally', () => {
    const r = dtrace(['-x', OPS(), '-b', '32', '-qn', 'BEGIN { printf("%s\\n", probeinstance); exit(0); }']);
    expect(r.stderr).toBe('dtrace: could not enable tracing: Enabling exceeds size of buffer\n');
    expect(r.stdout).toBe('');
    expect(r.status).toBe(1);
  }, 90_000);

  test('-c and -p are refused with a fleet, from -x fleet or DTRACE_FLEET, before anything is enabled', () => {
    const refused = 'dtrace: -c and -p not valid with a fleet (-x fleet or DTRACE_FLEET): they name processes of this machine, not of the instances\n';
    for (const extra of [['-c', 'true'], ['-p', String(process.pid)]]) {
      const r = dtrace(['-x', OPS(), ...extra, '-n', 'syscall::getppid:entry']);
      expect(r.stderr).toBe(refused);
      expect(r.status).toBe(2);
      const env = withEnv({ DTRACE_FLEET: url('ops:opspw@') }, () => dtrace([...extra, '-n', 'BEGIN']));
      expect(env.stderr).toBe(refused);
      expect(env.status).toBe(2);
    }
  }, 90_000);

  test('a description of an unknown instance is refused, naming it', () => {
    const r = dtrace(['-x', OPS(), '-n', 'zz:syscall::getppid:entry']);
    expect(r.stderr).toBe('dtrace: invalid probe specifier zz:syscall::getppid:entry: probe description zz:syscall::getppid:entry does not match any probes\n');
    expect(r.status).toBe(1);
  }, 90_000);

  test('a client without credentials, or with a wrong password, is refused', () => {
    for (const cred of ['', 'ops:wrong@']) {
      const r = dtrace(['-x', `fleet=${url(cred)}`, '-n', 'a:syscall::getppid:entry']);
      expect(r.stderr).toBe(`dtrace: cannot use fleet nats://127.0.0.1:${port}: not authorized (check the user and password in the fleet URL)\n`);
      expect(r.status).toBe(1);
    }
  }, 90_000);

  test('a client permitted only instance a is refused b, and may trace a', async () => {
    const r = dtrace(['-x', `fleet=${url('aonly:aonlypw@')}`, '-n', 'b:syscall::getppid:entry']);
    expect(r.stderr).toBe('dtrace: instance b: not permitted to publish to dtrace.agent.b.enable\n');
    expect(r.status).toBe(1);
    const ok = dtrace(['-x', `fleet=${url('aonly:aonlypw@')}`, '-qn', 'a:dtrace:::BEGIN { printf("%s\\n", probeinstance); exit(0); }']);
    expect(ok.stdout).toBe('a\n\n');
    expect(ok.status).toBe(0);
  }, 90_000);

  test('an agent whose client is gone closes the enabling', async () => {
    const d = dtraceAsync(['-x', OPS(), '-n', 'c:syscall::getppid:entry { @ = count(); }', '-n', 'c:dtrace:::BEGIN { printf("ready"); }']);
    await d.waitFor(/ready/, 90_000);
    d.child.kill('SIGKILL');
    await until('c to end the enabling', () => /enabling \S+ ended: its client stopped heartbeating/.test(agents.get('c')!.log()), 30_000);
  }, 120_000);

  test('a nats-server restart mid-run loses no record: counts stay exact', async () => {
    const restart = async () => {
      const old = server!;
      old.kill('SIGKILL');
      await new Promise((res) => old.on('close', res));
      await startServer();
      // The agents and dtrace reconnect; the stream kept what it acknowledged.
      await new Promise((res) => setTimeout(res, 2000));
    };
    // Before the workload (the enabling goes on after it) and after it (its records are kept).
    const r = await countPerInstance('*:syscall::getppid:entry', 6, [], restart, restart);
    expect(r.stderr).not.toMatch(/lost/);
    expect(counts(r.stdout)).toEqual({ a: 6, b: 6, c: 6 });
    expect(r.status).toBe(0);
  }, 150_000);

  test('kill -9 of an agent mid-run: dtrace reports it lost and prints the others', async () => {
    const r = await countPerInstance('*:syscall::getppid:entry', 4, [], async () => {
      agents.get('c')!.child.kill('SIGKILL');
      // Lost after SILENCE_MS (4 s) without a word from it.
      await new Promise((res) => setTimeout(res, 6000));
    });
    expect(r.stderr).toMatch(/^dtrace: instance c lost$/m);
    expect(counts(r.stdout)).toEqual({ a: 4, b: 4 });
    expect(r.status).toBe(0);
  }, 150_000);
});
