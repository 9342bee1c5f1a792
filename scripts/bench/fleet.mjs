#!/usr/bin/env node
// Fleet benchmarks (issue 18): one dtrace through NATS to 1, 3 and 8 dtraced agents on this
// machine, beside the same program run locally. A nats-server (JetStream in the bench's temporary
// directory) listens on 127.0.0.1 only; agents are started one group at a time, so `*:` names 1,
// then 3, then 8 instances.
//   enable latency: from spawning dtrace to BEGIN's line from every instance (discovery,
//     compiling, the DOF shipped, every agent's enabling loaded and started)
//   record throughput: a storm of BENCH_FLEET_EVENTS getppid calls, each printing a line; every
//     agent traces the same kernel, so N agents deliver N lines per call. Lines per second from
//     the storm's start to the last expected line (or a timeout: then the lines that came, and
//     the drops dtrace reported)
// Every agent shares this machine's 2 CPUs with the tracer, the server and the storm, so these
// figures say how the path costs, not how a fleet of real machines scales.
// Run as root: `node scripts/bench/fleet.mjs` (or `BENCH_ONLY=fleet npm run bench`).
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../..');
const dtrace = path.join(root, 'bin/dtrace');
const dtraced = path.join(root, 'bin/dtraced');
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const spread = (xs, digits = 2) => `${Math.min(...xs).toFixed(digits)}..${Math.max(...xs).toFixed(digits)}`;

function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const p = s.address().port;
      s.close(() => resolve(p));
    });
    s.on('error', reject);
  });
}

/** A child whose stderr is kept; resolves when `ready` matches it. */
async function startLogged(cmd, args, ready, what) {
  const child = spawn(cmd, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  child.stderr.on('data', (d) => (log += d));
  for (let i = 0; !ready.test(log); i++) {
    if (child.exitCode !== null || i > 1200) throw new Error(`${what} did not start: ${log.trim().slice(0, 300)}`);
    await sleep(50);
  }
  return child;
}

async function stop(child) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const closed = new Promise((r) => child.on('close', r));
  for (const sig of ['SIGINT', 'SIGINT', 'SIGKILL']) {
    child.kill(sig);
    if (await Promise.race([closed.then(() => true), sleep(15000).then(() => false)])) return;
  }
}

/**
 * One run: spawn dtrace, time until `instances` BEGIN lines, then run the storm and time until
 * instances * events lines (at most `timeoutMs`), then stop it.
 */
async function run(args, instances, storm, events, timeoutMs) {
  const script = 'syscall::getppid:entry /execname == "fleetstorm"/ { printf("%d\\n", tid); } BEGIN { printf("ready\\n"); }';
  const t0 = process.hrtime.bigint();
  const child = spawn(dtrace, [...args, '-q', '-b', '16m', '-n', script], { stdio: ['ignore', 'pipe', 'pipe'] });
  let ready = 0, lines = 0, err = '', partial = '';
  let readyAt = null, doneAt = null;
  const expected = instances * events;
  child.stdout.on('data', (d) => {
    const text = partial + d;
    const all = text.split('\n');
    partial = all.pop();
    for (const l of all) {
      if (l === 'ready') ready++;
      else if (/^\d+$/.test(l)) lines++;
    }
    if (readyAt === null && ready >= instances) readyAt = process.hrtime.bigint();
    if (doneAt === null && lines >= expected) doneAt = process.hrtime.bigint();
  });
  child.stderr.on('data', (d) => (err += d));
  for (let i = 0; readyAt === null; i++) {
    if (child.exitCode !== null || i > 2400) {
      await stop(child);
      throw new Error(`dtrace ${args.join(' ')} never got ready: ${err.trim().slice(0, 300)}`);
    }
    await sleep(10);
  }
  await sleep(300);
  const s0 = process.hrtime.bigint();
  execFileSync(storm, [String(events)]);
  for (let i = 0; doneAt === null && i * 20 < timeoutMs; i++) await sleep(20);
  const end = doneAt ?? process.hrtime.bigint();
  await stop(child);
  const drops = [...err.matchAll(/(\d+) drops? on CPU/g)].reduce((t, m) => t + Number(m[1]), 0);
  return { enableS: Number(readyAt - t0) / 1e9, secs: Number(end - s0) / 1e9, lines, expected, drops, complete: doneAt !== null };
}

export async function fleetBench({ rounds = Number(process.env.BENCH_ROUNDS ?? 3), log = console.log } = {}) {
  const natsServer = ['/usr/sbin/nats-server', '/usr/bin/nats-server'].find((p) => existsSync(p));
  if (!natsServer) throw new Error('nats-server is not installed (scripts/setup-system.sh installs it)');
  const events = Number(process.env.BENCH_FLEET_EVENTS ?? 100_000);
  const sizes = (process.env.BENCH_FLEET_AGENTS ?? '1,3,8').split(',').map(Number).sort((a, b) => a - b);
  const timeoutMs = Number(process.env.BENCH_FLEET_TIMEOUT_MS ?? 60_000);
  const work = mkdtempSync(path.join(tmpdir(), 'dtrace-fleet-bench-'));
  const children = [];
  try {
    const storm = path.join(work, 'fleetstorm');
    execFileSync('gcc', ['-O2', '-o', storm, path.join(here, 'storm.c')]);
    const port = await freePort();
    writeFileSync(path.join(work, 'nats.conf'), `listen: 127.0.0.1:${port}\njetstream { store_dir: "${work}/js" }\n` +
      'authorization { users = [ { user: agent, password: agentpw }, { user: ops, password: opspw } ] }\n');
    children.push(await startLogged(natsServer, ['-c', path.join(work, 'nats.conf')], /Server is ready/, 'nats-server'));
    const fleet = `fleet=nats://ops:opspw@127.0.0.1:${port}`;

    const rows = [];
    const measure = async (name, args, instances) => {
      const rs = [];
      for (let i = 0; i < rounds; i++) rs.push(await run(args, instances, storm, events, timeoutMs));
      const row = {
        name, instances, enable: median(rs.map((r) => r.enableS)), enables: rs.map((r) => r.enableS),
        perSec: median(rs.map((r) => r.lines / r.secs)), rates: rs.map((r) => r.lines / r.secs),
        lines: rs.map((r) => `${r.lines}/${r.expected}`), drops: rs.map((r) => r.drops), complete: rs.every((r) => r.complete),
      };
      rows.push(row);
      return row;
    };
    const local = await measure('local', [], 1);
    let started = 0;
    for (const n of sizes) {
      // More agents, named f0, f1, ...: `*:` (an omitted instance) names every one of them.
      const more = [];
      for (; started < n; started++) {
        more.push(startLogged(dtraced, ['-n', `f${started}`, '-x', `fleet=nats://agent:agentpw@127.0.0.1:${port}`], /serving/, `agent f${started}`));
      }
      children.push(...(await Promise.all(more)));
      await measure(`${n} agent${n === 1 ? '' : 's'}`, ['-x', fleet], n);
    }

    log(`# fleet (issue 18): ${rounds} rounds, ${events} printf events per storm, agents and nats-server on this machine (2 CPUs, shared: figures are indicative only)`);
    for (const r of rows) {
      log(`fleet ${r.name.padEnd(9)} enable (start to BEGIN on every instance) ${r.enable.toFixed(3)} s (${spread(r.enables, 3)}; ratio to local ${(r.enable / local.enable).toFixed(2)}x); ` +
        `records ${Math.round(r.perSec)} lines/s (${spread(r.rates, 0)}; ratio to local ${(r.perSec / local.perSec).toFixed(2)}x; per instance ${Math.round(r.perSec / r.instances)}); ` +
        `lines ${r.lines.join(' ')}${r.complete ? '' : ' (incomplete: timed out)'}; drops ${r.drops.join(' ')}`);
    }
    return rows;
  } finally {
    for (const c of children.reverse()) await stop(c);
    rmSync(work, { recursive: true, force: true });
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  if (process.getuid() !== 0) {
    console.error('bench: run the benchmarks as root');
    process.exit(1);
  }
  fleetBench().catch((e) => {
    console.error(`bench: ${e.message}`);
    process.exit(1);
  });
}
