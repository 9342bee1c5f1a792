#!/usr/bin/env node
// Benchmarks: the same one-liners under this dtrace and under bpftrace, in one run, as ratios.
//   per-event cost of `@ = count()` and `@[execname, tid] = count()` on a getppid storm
//     (cost = traced minus untraced time per call). The machine is shared and noisy, so each
//     round measures untraced, dtrace and bpftrace back to back (alternating which tracer goes
//     first), every measurement is the fastest of REPS storms, and the ratio is taken per round;
//     the report gives medians and the spread (min..max) of the per-round ratios.
//   printf throughput: lines per second with no drops for a storm of 1,000,000 printf events,
//     beside bpftrace and the reference
//   wall time and peak memory of `BEGIN { exit(0) }`
//   load time of a large script: 20 clauses on one probe, each doing string work (issue 13),
//     from start to ready (the last clause's line printed: every program loaded and attached,
//     BEGIN run), beside DTrace for Linux (/opt/oracle-dtrace, when installed) and bpftrace (20
//     lines from one BEGIN block with the string work bpftrace has), with the verifier's processed
//     instructions
//   ready time of a whole library's entry probes: `pid$target:libc.so.6::entry` (uprobe-multi
//     links, issue 16) beside bpftrace's `uprobe:/lib/x86_64-linux-gnu/libc.so.6:*`, both on a
//     running process (-p), from start to ready (BEGIN's line printed: every probe attached)
//   the fleet (issue 18): enable latency and record throughput through NATS with 1, 3 and 8
//     agents beside the same program run locally (scripts/bench/fleet.mjs)
// Run as root: `npm run bench` (installs Debian's bpftrace when it is missing).
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../..');
const dtrace = path.join(root, 'bin/dtrace');
const work = mkdtempSync(path.join(tmpdir(), 'dtrace-bench-'));
const storm = path.join(work, 'storm');
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const CALLS = Number(process.env.BENCH_CALLS ?? 1_000_000);
const REPS = Number(process.env.BENCH_REPS ?? 3);
// BENCH_ONLY=cost,begin,load,syscalls,compile,uprobes,printf,fleet runs some sections only (all by default).
const ONLY = process.env.BENCH_ONLY ? new Set(process.env.BENCH_ONLY.split(',')) : null;
const want = (section) => !ONLY || ONLY.has(section);

function ensureBpftrace() {
  if (spawnSync('bpftrace', ['--version']).status === 0) return;
  console.error('bench: installing bpftrace from Debian');
  execFileSync('apt-get', ['update', '-qq'], { stdio: 'inherit' });
  execFileSync('apt-get', ['install', '-y', '-qq', 'bpftrace'], { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

function runStorm(n = CALLS) {
  return Number(execFileSync(storm, [String(n)], { encoding: 'utf8' }).trim());
}

/** SIGINT a tracer and wait for it to exit; a loaded machine can make it miss the first one. */
async function stop(child) {
  const closed = new Promise((r) => child.on('close', r));
  for (const sig of ['SIGINT', 'SIGINT', 'SIGKILL']) {
    child.kill(sig);
    if (await Promise.race([closed.then(() => true), sleep(15000).then(() => false)])) return;
  }
  await closed;
}

/** The fastest of REPS storms: other load on the machine only ever adds time. */
function bestStorm() {
  let best = Infinity;
  for (let i = 0; i < REPS; i++) best = Math.min(best, runStorm());
  return best;
}

/** Start a tracer, wait until it is attached, run the storms, stop the tracer. */
async function traced(cmd, args, ready) {
  const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '', err = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (err += d));
  for (let i = 0; i < 300 && !ready(out, err); i++) await sleep(50);
  if (!ready(out, err)) throw new Error(`${path.basename(cmd)} did not start: ${err.trim()}`);
  await sleep(500);
  const ns = bestStorm();
  await stop(child);
  return { ns, out, err };
}

const spread = (xs, digits = 2) => `${Math.min(...xs).toFixed(digits)}..${Math.max(...xs).toFixed(digits)}`;

async function perEventCost(name, dscript, bscript) {
  const runD = async () => (await traced(dtrace, ['-n', dscript], (o, e) => /matched/.test(e))).ns;
  const runB = async () => (await traced('bpftrace', ['-e', bscript], (o) => /Attaching/.test(o))).ns;
  const base = [], d = [], b = [], ratios = [];
  for (let i = 0; i < ROUNDS; i++) {
    const before = bestStorm();
    let dn, bn;
    if (i % 2 === 0) dn = await runD(), bn = await runB();
    else bn = await runB(), dn = await runD();
    const t0 = Math.min(before, bestStorm());
    base.push(t0), d.push(dn - t0), b.push(bn - t0), ratios.push((dn - t0) / (bn - t0));
  }
  return { name, untraced: median(base), dtrace: median(d), bpftrace: median(b), ratio: median(ratios), ratios };
}

function timed(cmd, args) {
  // python3 reports the child's wall time and peak RSS (ru_maxrss, KiB).
  const py = `import resource,subprocess,sys,time
t=time.monotonic(); p=subprocess.run(sys.argv[1:],stdout=subprocess.DEVNULL,stderr=subprocess.DEVNULL); w=time.monotonic()-t
print(w, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, p.returncode)`;
  const [wall, rss, rc] = execFileSync('/usr/bin/python3', ['-c', py, cmd, ...args], { encoding: 'utf8' }).trim().split(' ').map(Number);
  if (rc !== 0) throw new Error(`${cmd} exited ${rc}`);
  return { wall, rssMiB: rss / 1024 };
}

/**
 * printf throughput: a storm of PRINTF_EVENTS getppid calls from one thread on one CPU, each
 * printing a line; every tracer has buffers large enough to keep them all and writes to a file
 * (as to /dev/null, but countable). The time is from the storm's start to the tracer's exit,
 * which its own clause calls at the last event: lines per second when nothing is dropped.
 */
async function printfThroughput() {
  const n = Number(process.env.BENCH_PRINTF_EVENTS ?? 1_000_000);
  const out = path.join(work, 'printf.out');
  const run = async (cmd, args, ready, env = {}) => {
    writeFileSync(out, '');
    const fd = openSync(out, 'w');
    const child = spawn(cmd, args, { stdio: ['ignore', fd, 'pipe'], env: { ...process.env, ...env } });
    closeSync(fd);
    let err = '';
    child.stderr.on('data', (d) => (err += d));
    const closed = new Promise((r) => child.on('close', r));
    for (let i = 0; i < 600 && !ready(readFileSync(out, 'utf8').slice(0, 4096)); i++) await sleep(50);
    await sleep(300);
    const t0 = process.hrtime.bigint();
    execFileSync('taskset', ['-c', '0', storm, String(n)]);
    const done = await Promise.race([closed.then(() => true), sleep(120_000).then(() => false)]);
    const secs = Number(process.hrtime.bigint() - t0) / 1e9;
    if (!done) await stop(child);
    const text = readFileSync(out, 'utf8');
    const lines = text.split('\n').filter((l) => /^\d+$/.test(l)).length;
    // dtrace reports drops on stderr, bpftrace ("Lost N events") on stdout.
    const drops = [...(err + text).matchAll(/(\d+) drops?|Lost (\d+)/g)].reduce((t, m) => t + Number(m[1] ?? m[2]), 0);
    return { lines, drops, secs, perSec: lines / secs };
  };
  const d = 'syscall::getppid:entry /execname == "storm"/ { printf("%d\\n", tid); }';
  const last = `syscall::getppid:entry /execname == "storm" && ++n == ${n}/ { exit(0); }`;
  const dscript = `${d} ${last} BEGIN { printf("ready\\n"); }`;
  const results = { events: n };
  results.dtrace = await run(dtrace, ['-b', '256m', '-qn', dscript], (o) => /ready/.test(o));
  results.bpftrace = await run('bpftrace', ['-e', `tracepoint:syscalls:sys_enter_getppid /comm == "storm"/ { printf("%d\\n", tid); @n++; if (@n == ${n}) { exit(); } }`],
    (o) => /Attaching/.test(o), { BPFTRACE_PERF_RB_PAGES: '65536' });
  if (existsSync(REFERENCE))
    results.reference = await run(REFERENCE, ['-b', '256m', '-x', 'switchrate=50hz', '-qn', dscript], (o) => /ready/.test(o));
  return results;
}

async function main() {
  if (process.getuid() !== 0) throw new Error('run the benchmarks as root');
  ensureBpftrace();
  execFileSync('gcc', ['-O2', '-o', storm, path.join(here, 'storm.c')]);
  if (!existsSync(path.join(root, 'dist/cli/main.js'))) throw new Error('build first: npm install');
  const version = execFileSync('bpftrace', ['--version'], { encoding: 'utf8' }).trim();
  console.log(`# dtrace vs ${version}, ${ROUNDS} rounds of ${CALLS} getppid calls, best of ${REPS} storms per measurement`);
  if (want('cost')) await costs();
  if (want('begin')) beginWall();
  if (want('load')) await loadTime();
  if (want('syscalls')) allSyscalls();
  if (want('compile')) compileBig();
  if (want('uprobes')) await libraryReady();
  if (want('printf')) {
    const p = await printfThroughput();
    const row = (name, r) => r && console.log(`printf of ${p.events} events  ${name.padEnd(9)} ${r.lines} lines in ${r.secs.toFixed(2)} s: ${Math.round(r.perSec)} lines/s, ${r.drops} drops`);
    row('dtrace', p.dtrace);
    row('bpftrace', p.bpftrace);
    row('reference', p.reference);
    console.log(`printf lines/s ratio     dtrace/bpftrace ${(p.dtrace.perSec / p.bpftrace.perSec).toFixed(2)}`);
  }
  if (want('fleet')) await (await import('./fleet.mjs')).fleetBench({ rounds: ROUNDS });
}

async function costs() {
  const rows = [
    await perEventCost('@ = count()', 'syscall::getppid:entry { @ = count(); }', 'tracepoint:syscalls:sys_enter_getppid { @ = count(); }'),
    await perEventCost('@[execname, tid] = count()', 'syscall::getppid:entry { @[execname, tid] = count(); }', 'tracepoint:syscalls:sys_enter_getppid { @[comm, tid] = count(); }'),
  ];
  for (const r of rows)
    console.log(`${r.name.padEnd(28)} untraced ${r.untraced.toFixed(0)} ns/call; added: dtrace ${r.dtrace.toFixed(0)} ns, bpftrace ${r.bpftrace.toFixed(0)} ns; ratio ${r.ratio.toFixed(2)}x (rounds ${spread(r.ratios)})`);
}

function beginWall() {
  const dt = [], bt = [];
  for (let i = 0; i < 2 * ROUNDS + 1; i++) {
    // Alternate which tool starts first, so drifting load falls on both alike.
    const d = () => dt.push(timed(dtrace, ['-qn', 'BEGIN { exit(0); }']));
    const b = () => bt.push(timed('bpftrace', ['-e', 'BEGIN { exit(); }']));
    if (i % 2 === 0) d(), b();
    else b(), d();
  }
  const dw = median(dt.map((x) => x.wall)), bw = median(bt.map((x) => x.wall));
  const dm = median(dt.map((x) => x.rssMiB)), bm = median(bt.map((x) => x.rssMiB));
  const wallRatios = dt.map((x, i) => x.wall / bt[i].wall);
  console.log(`BEGIN { exit(0) }             wall: dtrace ${dw.toFixed(3)} s (${spread(dt.map((x) => x.wall), 3)}), bpftrace ${bw.toFixed(3)} s (${spread(bt.map((x) => x.wall), 3)}); ratio ${(dw / bw).toFixed(2)}x (rounds ${spread(wallRatios)}); peak RSS: dtrace ${dm.toFixed(0)} MiB, bpftrace ${bm.toFixed(0)} MiB; ratio ${(dm / bm).toFixed(2)}x`);
}

/** Seconds from spawning cmd until its stdout matches `ready`; then waits for it to exit. */
async function untilReady(cmd, args, ready, env = process.env) {
  const t0 = process.hrtime.bigint();
  const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], env });
  let out = '', err = '', at = null;
  child.stdout.on('data', (d) => { out += d; if (at === null && ready.test(out)) at = process.hrtime.bigint(); });
  child.stderr.on('data', (d) => (err += d));
  const code = await new Promise((r) => child.on('close', r));
  if (at === null) throw new Error(`${path.basename(cmd)} never got ready (exit ${code}): ${err.trim().slice(0, 300)}`);
  return { s: Number(at - t0) / 1e9, err };
}

const REFERENCE = '/opt/oracle-dtrace/bin/oracle-dtrace';

async function loadTime() {
  const N = 20;
  const script = path.join(work, 'clauses.d');
  // The string work DTrace for Linux also loads 20 times over (it refuses index() and rindex() here).
  const clause = (i) => `dtrace:::BEGIN\n{\n\tthis->s = strjoin("clause${i}-", execname);\n\tprintf("%d %s %s %s %d\\n", ${i}, substr(this->s, 0, 9), basename(strjoin("/x/", this->s)), dirname(strjoin(this->s, "/y")), strlen(this->s) > 3 && this->s != "x");\n}\n`;
  writeFileSync(script, Array.from({ length: N }, (_, i) => clause(i)).join('') + 'dtrace:::BEGIN { exit(0); }\n');
  // bpftrace (0.17) allows one BEGIN block and has no strjoin(), basename() or dirname(): the same
  // 20 lines from one block, with the string work it has.
  const bscript = `BEGIN { ${Array.from({ length: N }, (_, i) => `printf("%d %s %s %d\\n", ${i}, "clause${i}-", comm, strncmp("clause${i}-", comm, 5));`).join(' ')} exit(); }`;
  const ready = new RegExp(`^${N - 1} `, 'm');
  const d = [], r = [], b = [];
  let processed = '';
  const haveRef = existsSync(REFERENCE);
  for (let i = 0; i < ROUNDS; i++) {
    const x = await untilReady(dtrace, ['-q', '-s', script], ready, { ...process.env, DTRACE_BPF_STATS: '1' });
    d.push(x.s);
    processed = (/verifier processed (\d+)/.exec(x.err) ?? [])[1] ?? '?';
    if (haveRef) {
      try {
        r.push((await untilReady(REFERENCE, ['-q', '-x', 'switchrate=50hz', '-s', script], ready)).s);
      } catch (e) {
        r.push(NaN), console.error(`bench: ${e.message}`);
      }
    }
    b.push((await untilReady('bpftrace', ['-e', bscript], ready)).s);
  }
  const dm = median(d);
  const ref = haveRef ? `, DTrace for Linux ${median(r).toFixed(3)} s (${spread(r, 3)}; ratio ${(dm / median(r)).toFixed(2)}x)` : ', DTrace for Linux not installed';
  console.log(`load ${N} string clauses        start to ready: dtrace ${dm.toFixed(3)} s (${spread(d, 3)}; verifier processed ${processed} insns)${ref}, bpftrace ${median(b).toFixed(3)} s (${spread(b, 3)}; one block, simpler string work)`);
}

/** Seconds from spawning cmd until its stdout matches `ready`; then stops it. */
async function readyThenStop(cmd, args, ready, env = process.env) {
  const t0 = process.hrtime.bigint();
  const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], env });
  let out = '', err = '';
  child.stderr.on('data', (d) => (err += d));
  const at = await new Promise((resolve) => {
    child.stdout.on('data', (d) => { out += d; if (ready.test(out)) resolve(process.hrtime.bigint()); });
    child.on('close', () => resolve(null));
  });
  if (at === null) throw new Error(`${path.basename(cmd)} never got ready: ${err.trim().slice(0, 300)}`);
  await stop(child);
  return { s: Number(at - t0) / 1e9, err };
}

async function libraryReady() {
  const target = spawn('sleep', ['3600'], { stdio: 'ignore' });
  try {
    await sleep(200);
    const pid = String(target.pid);
    const d = [], b = [];
    let matched = '', skipped = '', bfail = '';
    for (let i = 0; i < Math.min(ROUNDS, 3); i++) {
      const x = await readyThenStop(process.execPath, [dtrace, '-n', 'BEGIN { printf("ready\\n"); } pid$target:libc.so.6::entry { @[probefunc] = count(); }', '-p', pid], /ready/);
      d.push(x.s);
      matched = (/matched (\d+) probes/.exec(x.err) ?? [])[1] ?? '?';
      skipped = (/(\d+) functions? could not be instrumented/.exec(x.err) ?? [])[1] ?? '0';
      const t0 = Date.now();
      try {
        b.push((await readyThenStop('bpftrace', ['-p', pid, '-e', 'BEGIN { printf("ready\\n"); } uprobe:/lib/x86_64-linux-gnu/libc.so.6:* { @[func] = count(); }'], /ready/,
          // bpftrace refuses more than 512 probes unless told otherwise.
          { ...process.env, BPFTRACE_MAX_PROBES: '100000' })).s);
      } catch (e) {
        // bpftrace gives up on the whole script at the first probe the kernel refuses.
        bfail = `failed after ${((Date.now() - t0) / 1000).toFixed(1)} s (${(/Unknown error \d+|Error attaching probe[^\n]*/.exec(e.message) ?? ['?'])[0]})`;
      }
    }
    const dm = median(d);
    const bt = b.length > 0 ? `${median(b).toFixed(3)} s (${spread(b, 3)}); ratio ${(dm / median(b)).toFixed(2)}x` : bfail;
    console.log(`pid$target:libc.so.6::entry   start to ready: dtrace ${dm.toFixed(3)} s (${spread(d, 3)}; ${matched} probes, ${skipped} skipped), bpftrace uprobe:libc.so.6:* ${bt}`);
  } finally {
    target.kill('SIGKILL');
  }
}

function allSyscalls() {
  // Enabling every system call (issue 6): one run each, bpftrace attaches ~360 tracepoints.
  const ds = timed(dtrace, ['-qn', 'syscall:::entry { @[probefunc] = count(); } BEGIN { exit(0); }']);
  const bs = timed('bpftrace', ['-e', 'tracepoint:syscalls:sys_enter_* { @[probe] = count(); } BEGIN { exit(); }']);
  console.log(`syscall:::entry, all of them  wall: dtrace ${ds.wall.toFixed(2)} s, bpftrace ${bs.wall.toFixed(2)} s; ratio ${(ds.wall / bs.wall).toFixed(3)}x`);
}

function compileBig() {
  // Compiling a 2,000-line script (issue 3): dtrace -e compiles without enabling.
  const big = path.join(work, 'big.d');
  const clause = (i) => `syscall::getppid:entry\n/pid != ${i}/\n{\n\tc${i % 50} = arg0 + ${i};\n\tprintf("%d %s\\n", c${i % 50}, execname);\n}\n`;
  writeFileSync(big, Array.from({ length: 334 }, (_, i) => clause(i)).join(''));
  const ce = timed(dtrace, ['-e', '-s', big]);
  const nodeOnly = timed(process.execPath, ['-e', '0']);
  console.log(`compile 2,000 lines (-e)      wall: ${ce.wall.toFixed(3)} s (node alone starts in ${nodeOnly.wall.toFixed(3)} s)`);
  // Scale (issue 21): compile time must grow linearly. Goal: under 1 s each.
  const globals = path.join(work, 'globals.d');
  writeFileSync(globals, `BEGIN\n{\n${Array.from({ length: 10000 }, (_, i) => `\tg${i} = ${i};\n`).join('')}\texit(0);\n}\n`);
  const clauses = path.join(work, 'clauses.d');
  writeFileSync(clauses, Array.from({ length: 10000 }, (_, i) => `BEGIN /${i} == 0/ { x = ${i}; }\n`).join(''));
  const g = timed(dtrace, ['-e', '-s', globals]);
  const c = timed(dtrace, ['-e', '-s', clauses]);
  console.log(`compile 10,000 globals (-e)   wall: ${g.wall.toFixed(3)} s; 10,000 clauses: ${c.wall.toFixed(3)} s (goal: under 1 s each)`);
}

main().catch((e) => {
  console.error(`bench: ${e.message}`);
  process.exit(1);
});
