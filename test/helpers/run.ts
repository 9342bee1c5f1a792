// Runs bin/dtrace as a user would, from the compiled dist/.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const DTRACE = path.join(ROOT, 'bin/dtrace');

export interface Result {
  status: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export function dtrace(args: string[], opts: { input?: string; timeoutMs?: number; cwd?: string } = {}): Result {
  const r = spawnSync(DTRACE, [...args], {
    encoding: 'utf8', timeout: opts.timeoutMs ?? 60_000, cwd: opts.cwd ?? ROOT, input: opts.input ?? '',
  });
  return { status: r.status, signal: r.signal, stdout: r.stdout, stderr: r.stderr };
}

// A test that fails before it stops its background dtrace must not leave it tracing: whatever is
// still running when a test file ends is killed (test/helpers/setup.ts).
const running = new Set<ReturnType<typeof spawn>>();
export function killBackgroundDtraces(): void {
  for (const c of running) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
}

/** Start dtrace in the background; resolves once it has printed its "matched" line (or output). */
export function dtraceAsync(args: string[]) {
  const child = spawn(DTRACE, [...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  running.add(child);
  child.on('close', () => running.delete(child));
  let stdout = '', stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  const done = new Promise<Result>((resolve) =>
    child.on('close', (status, signal) => resolve({ status, signal, stdout, stderr })));
  /** Resolves once stdout matches `re` (e.g. a BEGIN clause's "ready" line: BEGIN's records are
   *  drained only after every probe is attached); rejects if dtrace ends first or after `ms`. */
  const waitFor = (re: RegExp, ms = 60_000) => new Promise<void>((resolve, reject) => {
    const started = Date.now();
    const poll = () => {
      if (re.test(stdout)) return resolve();
      if (child.exitCode !== null || child.signalCode !== null) return reject(new Error(`dtrace ended before ${re}: ${stderr}`));
      if (Date.now() - started > ms) return reject(new Error(`no ${re} from dtrace in ${ms} ms: ${stderr}`));
      setTimeout(poll, 20);
    };
    poll();
  });
  return { child, done, out: () => stdout, err: () => stderr, waitFor };
}

/** Why kernel tests cannot run here, or null when they can. */
export function kernelUnavailable(): string | null {
  if (process.getuid?.() !== 0) return 'kernel tests need root (bpf(2) and perf_event_open)';
  if (!existsSync('/sys/kernel/btf/vmlinux')) return 'the kernel has no BTF';
  if (!existsSync('/sys/bus/event_source/devices/tracepoint')) return 'the kernel has no tracepoint perf events';
  return null;
}

/** Build a test program (-O0 -g, plus `flags`), failing the test with gcc's message. */
export function gcc(src: string, out: string, flags: string[] = []): void {
  const r = spawnSync('gcc', ['-O0', '-g', ...flags, '-o', out, src], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`gcc failed: ${r.stderr}`);
}

export function listCases(dir: string, ext: string): string[] {
  return readdirSync(dir).filter((f) => f.endsWith(ext)).sort();
}

/** The online CPUs, from /sys/devices/system/cpu/online ("0-1,4"). */
export function onlineCpus(): number[] {
  const out: number[] = [];
  for (const part of readFileSync('/sys/devices/system/cpu/online', 'utf8').trim().split(',')) {
    const [lo, hi] = part.split('-').map(Number);
    for (let c = lo; c <= (hi ?? lo); c++) out.push(c);
  }
  return out;
}

/** f() with these environment variables set (dtrace inherits them), restored after. */
export function withEnv<T>(vars: Record<string, string>, f: () => T): T {
  const old = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]));
  Object.assign(process.env, vars);
  try {
    return f();
  } finally {
    for (const [k, v] of Object.entries(old)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}

/**
 * stderr without the kernel's recursion-miss reports ("N probe firings lost (CPU busy in another
 * BPF program)"): a probe on a busy path (locks, the scheduler) may now and then fire while
 * another BPF program runs on its CPU; dtrace reports it, and it is no error of the program.
 */
export function withoutMissReports(stderr: string): string {
  return stderr.replace(/^dtrace: (\S+ )?\d+ probe firings? lost \(CPU busy in another BPF program\)\n/gm, '');
}

