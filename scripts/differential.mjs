#!/usr/bin/env node
// Differential run of the end-to-end corpus against another dtrace (for developers, not CI).
//
//   DTRACE_OTHER=/opt/oracle-dtrace/bin/oracle-dtrace node scripts/differential.mjs [options] [NAME-SUBSTRING...]
//
// Every test/e2e/corpus/NAME.d runs as `dtrace [flags] -x errtags -s NAME.d` (flags from its first
// line `/* flags: ... */`, as test/e2e/corpus.test.ts runs it) under this dtrace (bin/dtrace) and
// under $DTRACE_OTHER, one after the other, from the repository's root. The cases where stdout,
// the exit status or the error tag (the first `[D_...]` of stderr) differ are listed, each with
// what differs, then counted.
//
// Options:
//   --timeout=SECONDS   per run (default 30); a run still going then gets SIGTERM (so DTrace for
//                       Linux removes its uprobes) and is reported as a timeout
//   --json=FILE         also write every case's results there (to compare two runs later)
//   --diff              show a unified diff of stdout for each case whose stdout differs
//   --other-flags=...   extra flags for the other dtrace only (default $DTRACE_OTHER_FLAGS, else
//                       `-x switchrate=50hz`: DTrace for Linux's consumer otherwise waits a second)
// Positional arguments keep only the cases whose name contains one of them.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const CORPUS = path.join(ROOT, 'test/e2e/corpus');
const OURS = path.join(ROOT, 'bin/dtrace');

const opts = { timeout: 30, json: null, diff: false, otherFlags: process.env.DTRACE_OTHER_FLAGS ?? '-x switchrate=50hz' };
const filters = [];
for (const a of process.argv.slice(2)) {
  const m = /^--([a-z-]+)(?:=(.*))?$/.exec(a);
  if (!m) { filters.push(a); continue; }
  if (m[1] === 'timeout') opts.timeout = Number(m[2]);
  else if (m[1] === 'json') opts.json = m[2];
  else if (m[1] === 'diff') opts.diff = true;
  else if (m[1] === 'other-flags') opts.otherFlags = m[2] ?? '';
  else { console.error(`differential: unknown option ${a}`); process.exit(2); }
}
const OTHER = process.env.DTRACE_OTHER;
if (!OTHER) {
  console.error('differential: name the other dtrace in DTRACE_OTHER (e.g. /opt/oracle-dtrace/bin/oracle-dtrace)');
  process.exit(2);
}

function flagsOf(text) {
  const m = /^\/\*\s*flags:(.*?)\*\//.exec(text);
  return m ? m[1].trim().split(/\s+/).filter(Boolean) : [];
}

function run(cmd, args) {
  const t0 = Date.now();
  const r = spawnSync(cmd, args, {
    cwd: ROOT, encoding: 'utf8', input: '', timeout: opts.timeout * 1000, killSignal: 'SIGTERM',
    maxBuffer: 64 << 20,
  });
  const stderr = r.stderr ?? '';
  return {
    status: r.error?.code === 'ETIMEDOUT' ? 'timeout' : r.status ?? `signal ${r.signal}`,
    stdout: r.stdout ?? '',
    stderr,
    tag: /\[(D_[A-Z0-9_]+)\]/.exec(stderr)?.[1] ?? null,
    ms: Date.now() - t0,
  };
}

function unifiedDiff(a, b) {
  const dir = mkdtempSync(path.join(tmpdir(), 'dtrace-diff-'));
  try {
    writeFileSync(path.join(dir, 'ours'), a);
    writeFileSync(path.join(dir, 'other'), b);
    return spawnSync('diff', ['-u', 'ours', 'other'], { cwd: dir, encoding: 'utf8' }).stdout;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const cases = readdirSync(CORPUS).filter((f) => f.endsWith('.d')).sort()
  .map((f) => f.slice(0, -2))
  .filter((n) => filters.length === 0 || filters.some((s) => n.includes(s)));

const results = [];
const counts = { stdout: 0, status: 0, tag: 0 };
let differing = 0;
for (const [i, name] of cases.entries()) {
  const file = `test/e2e/corpus/${name}.d`;
  const flags = flagsOf(readFileSync(path.join(ROOT, file), 'utf8'));
  const args = [...flags, '-x', 'errtags', '-s', file];
  const ours = run(OURS, [...args]);
  const other = run(OTHER, [...opts.otherFlags.split(/\s+/).filter(Boolean), ...args]);
  const what = [];
  if (ours.stdout !== other.stdout) what.push('stdout');
  if (String(ours.status) !== String(other.status)) what.push('status');
  if (ours.tag !== other.tag) what.push('tag');
  results.push({ name, flags, what, ours, other });
  if (what.length === 0) continue;
  differing++;
  for (const w of what) counts[w]++;
  const detail = [];
  if (what.includes('status')) detail.push(`status ${ours.status} vs ${other.status}`);
  if (what.includes('tag')) detail.push(`tag ${ours.tag ?? '-'} vs ${other.tag ?? '-'}`);
  if (what.includes('stdout')) {
    const a = ours.stdout.split('\n').length - 1, b = other.stdout.split('\n').length - 1;
    detail.push(`stdout ${a} vs ${b} lines`);
  }
  console.log(`[${i + 1}/${cases.length}] ${name}: ${detail.join('; ')}`);
  if (opts.diff && what.includes('stdout')) process.stdout.write(unifiedDiff(ours.stdout, other.stdout));
  if (what.includes('status') || what.includes('tag')) {
    const first = (s) => s.split('\n').find((l) => l && !/matched \d+ probes?$/.test(l)) ?? '';
    console.log(`    ours:  ${first(ours.stderr)}`);
    console.log(`    other: ${first(other.stderr)}`);
  }
}

console.log('');
console.log(`${differing} of ${cases.length} cases differ (stdout ${counts.stdout}, exit status ${counts.status}, error tag ${counts.tag}); other: ${OTHER}`);
if (opts.json) writeFileSync(opts.json, JSON.stringify({ other: OTHER, otherFlags: opts.otherFlags, results }, null, 1));
