// The corpus's topic files (test/e2e/corpus/AREA/TOPIC.dtest): several runtime cases per file,
// each with its requirements, set-up, workload, timeout and expectations. The format is described
// at the top of test/e2e/corpus.test.ts; this parses it, checks requirements and runs a case.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { readElf } from '../../src/sys/elf.js';
import path from 'node:path';
import { DTRACE, ROOT, onlineCpus } from './run.js';

export interface RuntimeCase {
  name: string;
  line: number;
  requires: string[];
  before: string[];
  after: string[];
  run: string | null;
  prog: string | null;
  flags: string;
  trigger: string | null;
  stdin: string;
  ready: string | null;
  interrupt: boolean;
  expect: Array<{ kind: 'line' | 'regex' | 'none' | 'exact'; stream: 'stdout' | 'stderr'; value: string }>;
  status: number;
  timeout: number;
}

export interface TopicFile {
  /** Directives before the first NAME: requirements of every case, set-up run once for the file. */
  requires: string[];
  before: string[];
  after: string[];
  cases: RuntimeCase[];
}

const BLOCK = new Set(['PROG', 'RUN', 'EXPECT_EXACT', 'STDERR_EXACT', 'STDIN']);

/** Parse a topic file. Throws, naming the line, on anything it does not know. */
export function parseTopic(text: string, file: string): TopicFile {
  const top: TopicFile = { requires: [], before: [], after: [], cases: [] };
  let c: RuntimeCase | null = null;
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i];
    if (raw.trim() === '' || raw.startsWith('#')) continue;
    const sp = raw.search(/\s/);
    const key = sp < 0 ? raw : raw.slice(0, sp);
    let value = sp < 0 ? '' : raw.slice(sp + 1).trim();
    const where = `${file}:${i + 1}`;
    if (value === '' && BLOCK.has(key)) {
      // A block: the following lines that start with `|` (then one space, which is dropped).
      const body: string[] = [];
      while (i + 1 < lines.length && lines[i + 1].startsWith('|')) body.push(lines[++i].slice(1).replace(/^ /, ''));
      value = body.join('\n') + (key.endsWith('EXACT') && body.length > 0 ? '\n' : '');
    }
    if (key === 'NAME') {
      c = {
        name: value, line: i + 1, requires: [], before: [], after: [], run: null, prog: null, flags: '',
        trigger: null, stdin: '', ready: null, interrupt: false, expect: [], status: 0, timeout: 30,
      };
      top.cases.push(c);
      continue;
    }
    const into = c ?? top;
    switch (key) {
      case 'REQUIRES': into.requires.push(value); continue;
      case 'BEFORE': into.before.push(value); continue;
      case 'AFTER': into.after.push(value); continue;
    }
    if (!c) throw new Error(`${where}: ${key} before the first NAME (only REQUIRES, BEFORE and AFTER may be)`);
    switch (key) {
      case 'RUN': c.run = value; break;
      case 'PROG': c.prog = value; break;
      case 'FLAGS': c.flags = value; break;
      case 'TRIGGER': c.trigger = value; break;
      case 'STDIN': c.stdin += value + '\n'; break;
      case 'READY': c.ready = value; break;
      case 'INTERRUPT': c.interrupt = true; break;
      case 'EXPECT': c.expect.push({ kind: 'line', stream: 'stdout', value }); break;
      case 'EXPECT_REGEX': c.expect.push({ kind: 'regex', stream: 'stdout', value }); break;
      case 'EXPECT_NONE': c.expect.push({ kind: 'none', stream: 'stdout', value }); break;
      case 'EXPECT_EXACT': c.expect.push({ kind: 'exact', stream: 'stdout', value }); break;
      case 'STDERR': c.expect.push({ kind: 'line', stream: 'stderr', value }); break;
      case 'STDERR_REGEX': c.expect.push({ kind: 'regex', stream: 'stderr', value }); break;
      case 'STDERR_EXACT': c.expect.push({ kind: 'exact', stream: 'stderr', value }); break;
      case 'STDERR_NONE': c.expect.push({ kind: 'none', stream: 'stderr', value }); break;
      case 'STATUS': c.status = Number(value); break;
      case 'TIMEOUT': c.timeout = Number(value); break;
      default: throw new Error(`${where}: unknown directive ${key}`);
    }
  }
  for (const k of top.cases) {
    if ((k.run === null) === (k.prog === null)) throw new Error(`${file}:${k.line}: case "${k.name}" needs one of RUN and PROG`);
    // A case that only says what must not appear passes when nothing was traced.
    if (!k.expect.some((e) => e.kind !== 'none')) throw new Error(`${file}:${k.line}: case "${k.name}" expects nothing that must appear`);
  }
  return top;
}

/** Split a command line into words as sh does for quotes ('...', "...", \x); no expansions. */
export function shellWords(s: string): string[] {
  const out: string[] = [];
  let cur = '', inWord = false;
  for (let i = 0; i < s.length; i++) {
    const ch = s[i];
    if (ch === "'") {
      const end = s.indexOf("'", i + 1);
      if (end < 0) throw new Error(`unterminated ' in ${s}`);
      cur += s.slice(i + 1, end), i = end, inWord = true;
    } else if (ch === '"') {
      i++;
      for (; i < s.length && s[i] !== '"'; i++) {
        if (s[i] === '\\' && (s[i + 1] === '"' || s[i + 1] === '\\')) i++;
        cur += s[i];
      }
      if (i >= s.length) throw new Error(`unterminated " in ${s}`);
      inWord = true;
    } else if (ch === '\\' && i + 1 < s.length) {
      cur += s[++i], inWord = true;
    } else if (/\s/.test(ch)) {
      if (inWord) out.push(cur), cur = '', inWord = false;
    } else {
      cur += ch, inWord = true;
    }
  }
  if (inWord) out.push(cur);
  return out;
}

const cache = new Map<string, string | null>();

function facility(name: string): string | null {
  const btf = () => existsSync('/sys/kernel/btf/vmlinux') ? readFileSync('/sys/kernel/btf/vmlinux') : Buffer.alloc(0);
  switch (name) {
    case 'uprobe': return existsSync('/sys/bus/event_source/devices/uprobe/type') ? null : 'the kernel has no uprobe PMU';
    case 'kprobe': return existsSync('/sys/bus/event_source/devices/kprobe/type') ? null : 'the kernel has no kprobe PMU';
    case 'no-kprobe': return existsSync('/sys/bus/event_source/devices/kprobe/type') ? 'the kernel has kprobes' : null;
    case 'btf': return existsSync('/sys/kernel/btf/vmlinux') ? null : 'the kernel has no BTF';
    case 'sched_exit_tp': return btf().includes('\0btf_trace_sched_exit_tp\0') ? null : 'the kernel has no sched_exit_tp';
    case 'loop': return existsSync('/dev/loop-control') && spawnSync('losetup', ['--version']).status === 0 ? null : 'no loop devices (/dev/loop-control, losetup)';
    default: throw new Error(`unknown facility ${name} (uprobe, kprobe, no-kprobe, btf, sched_exit_tp, loop)`);
  }
}

/** Why a requirement is not met here, or null. Results are cached for the run. */
export function unmet(req: string): string | null {
  if (cache.has(req)) return cache.get(req)!;
  const [what, ...rest] = req.split(/\s+/);
  const arg = rest.join(' ');
  let why: string | null;
  switch (what) {
    case 'root': why = process.getuid?.() === 0 ? null : 'needs root'; break;
    case 'cpus': why = onlineCpus().length >= Number(arg) ? null : `needs ${arg} online CPUs`; break;
    case 'program': {
      const found = arg.includes('/') ? existsSync(arg) : spawnSync('sh', ['-c', `command -v ${arg}`]).status === 0;
      why = found ? null : `${arg} is not installed`;
      break;
    }
    case 'provider': {
      const r = spawnSync(DTRACE, ['-l', '-P', arg], { encoding: 'utf8', cwd: ROOT, timeout: 60_000 });
      why = r.status === 0 && r.stdout.trim().split('\n').length > 1 ? null : `provider ${arg} offers no probes here: ${r.stderr.trim()}`;
      break;
    }
    case 'facility': why = facility(arg); break;
    case 'sdt': {
      // sdt FILE PROVIDER: FILE carries SDT notes of PROVIDER (a USDT target).
      const [file, provider] = rest;
      let notes: string[] = [];
      try {
        notes = readElf(realpathSync(file)).sdtNotes().map((n) => n.provider);
      } catch {
        // not there, or not ELF
      }
      why = notes.includes(provider) ? null : `${file} has no ${provider} SDT notes`;
      break;
    }
    default: throw new Error(`unknown requirement "${req}" (root, cpus N, program P, provider P, facility F, sdt FILE P)`);
  }
  cache.set(req, why);
  return why;
}

export function expand(s: string, work: string): string {
  return s.replaceAll('$WORK', work).replaceAll('$ROOT', ROOT);
}

/** Run a shell command for set-up or a trigger, throwing with its output when it fails. */
export function sh(cmd: string, work: string, timeoutMs = 60_000): void {
  const r = spawnSync('sh', ['-c', expand(cmd, work)], { encoding: 'utf8', cwd: work, timeout: timeoutMs });
  if (r.status !== 0) throw new Error(`'${cmd}' failed (${r.status ?? r.signal}): ${r.stdout}${r.stderr}`);
}

export interface CaseResult { status: number | null; signal: string | null; stdout: string; stderr: string; timedOut: boolean }

/** Run one case's dtrace: its workload while it traces, its timeout. */
export async function runCase(c: RuntimeCase, work: string): Promise<CaseResult> {
  let args: string[];
  if (c.prog !== null && c.prog.includes('\n')) {
    const file = path.join(work, `case-${c.line}.d`);
    writeFileSync(file, expand(c.prog, work));
    args = [...shellWords(expand(c.flags, work)), '-s', file];
  } else if (c.prog !== null) {
    args = [...shellWords(expand(c.flags, work)), '-n', expand(c.prog, work)];
  } else {
    args = shellWords(expand(c.run!, work));
  }
  const child = spawn(DTRACE, [...args], { cwd: work, stdio: [c.stdin ? 'pipe' : 'ignore', 'pipe', 'pipe'] });
  if (c.stdin) child.stdin!.end(c.stdin);
  if (!child.stdout || !child.stderr) throw new Error('dtrace has no output pipes');
  let stdout = '', stderr = '', timedOut = false;
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  const done = new Promise<CaseResult>((resolve) => child.on('close', (status, signal) =>
    resolve({ status, signal, stdout, stderr, timedOut })));
  const timer = setTimeout(() => {
    timedOut = true;
    child.kill('SIGKILL');
  }, c.timeout * 1000);
  try {
    if (c.trigger !== null) {
      const ready = new RegExp(c.ready ?? '^ready$|^dtrace: description .* matched \\d+ probes?$', 'm');
      const ended = { v: false };
      child.on('close', () => (ended.v = true));
      while (!ready.test(stdout) && !ready.test(stderr) && !ended.v && !timedOut) await new Promise((r) => setTimeout(r, 20));
      if (!ended.v && !timedOut) {
        await new Promise<void>((resolve) => {
          const t = spawn('sh', ['-c', expand(c.trigger!, work)], { cwd: work, stdio: 'ignore' });
          t.on('close', () => resolve());
        });
        if (c.interrupt) child.kill('SIGINT');
      }
    }
    return await done;
  } finally {
    clearTimeout(timer);
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
}

/** Every expectation a case's result does not meet, in words (empty: the case passes). */
export function failures(c: RuntimeCase, r: CaseResult, work: string): string[] {
  const out: string[] = [];
  if (r.timedOut) out.push(`dtrace did not end within TIMEOUT ${c.timeout} s`);
  if (r.status !== c.status) out.push(`exit status ${r.status ?? r.signal}, expected ${c.status}`);
  for (const e of c.expect) {
    const text = e.stream === 'stdout' ? r.stdout : r.stderr;
    const value = expand(e.value, work);
    const re = () => new RegExp(e.kind === 'line' ? '' : expand(e.value, work.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')), 'm');
    if (e.kind === 'exact' && text !== value) out.push(`${e.stream} is not exactly:\n${value}`);
    if (e.kind === 'line' && !text.split('\n').includes(value)) out.push(`${e.stream} has no line "${value}"`);
    if (e.kind === 'regex' && !re().test(text)) out.push(`${e.stream} has no match for /${e.value}/m`);
    if (e.kind === 'none' && re().test(text)) out.push(`${e.stream} matches /${e.value}/m, which it must not`);
  }
  return out;
}
