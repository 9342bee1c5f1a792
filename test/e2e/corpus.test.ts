// The end-to-end corpus, run through bin/dtrace as a user would, on the real kernel. Two kinds of
// file live in test/e2e/corpus/:
//
// 1. One case per file, at the top level: each NAME.d runs as `dtrace [flags] -s NAME.d`, and its
//    stdout (and stderr and exit status, where given) must match exactly.
//      NAME.d       the script; a first line `/* flags: -q -x strsize=64 */` adds options
//      NAME.out     expected stdout
//      NAME.err     expected stderr (optional; otherwise stderr is not compared)
//      NAME.status  expected exit status (optional; default 0)
//
// 2. Topic files, in a folder per area: AREA/TOPIC.dtest holds several runtime cases, each with
//    its requirements, set-up, workload, timeout and expectations (test/helpers/runtime-cases.ts).
//    A line is a directive and its value; `#` lines are comments. Directives before the first NAME
//    apply to the whole file (REQUIRES: every case; BEFORE/AFTER: run once, before and after all
//    its cases). A directive given with no value on its line takes the `|` lines that follow as
//    its value, one per line (`| text`, the one space after `|` dropped; `|` alone, an empty line).
//      NAME text            starts a case; the test is named AREA/TOPIC: text
//      REQUIRES what        root | cpus N | program P (name on PATH, or a path) | provider P (has
//                           probes here) | facility F (uprobe, kprobe, no-kprobe, btf,
//                           sched_exit_tp, loop) | sdt FILE PROVIDER (FILE has that provider's SDT
//                           notes): unmet, the case is a reported skip with the reason
//      PROG d-program       the D program: one line as -n, a `|` block as a -s file
//      FLAGS options        dtrace options before the PROG (-q, -x ..., -c 'cmd', ...)
//      RUN arguments        instead of PROG: the whole dtrace command line (sh quoting)
//      BEFORE command       sh command run before dtrace, in $WORK; must exit 0
//      TRIGGER command      sh command run once dtrace is tracing (READY seen), while it traces
//      READY regex          what says dtrace is tracing (default: a stdout line `ready`, as a BEGIN
//                           clause prints it, or dtrace's "matched N probes" line on stderr)
//      INTERRUPT            send dtrace SIGINT when TRIGGER has ended
//      STDIN line           a line of dtrace's standard input (which a -c command inherits)
//      EXPECT line          stdout has this line, exactly
//      EXPECT_REGEX re      stdout matches re (multiline: ^ and $ are line ends)
//      EXPECT_NONE re       stdout does not match re (a case needs at least one expectation of
//                           what must appear, as one that only forbids passes with no output)
//      EXPECT_EXACT         (a `|` block) stdout is exactly this
//      STDERR line, STDERR_REGEX re, STDERR_NONE re, STDERR_EXACT: the same for stderr
//      STATUS n             exit status (default 0)
//      TIMEOUT seconds      dtrace is killed after this and the case fails (default 30)
//      AFTER command        sh command run after the case (or the file), pass or fail
//    $WORK (a temporary folder per topic file, which is also the current directory) and $ROOT (the
//    checkout) are replaced in every value. dtrace's own -c and -p go in FLAGS or RUN.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ROOT, dtrace, kernelUnavailable, listCases } from '../helpers/run.js';
import { failures, parseTopic, runCase, sh, unmet } from '../helpers/runtime-cases.js';

const DIR = path.join(ROOT, 'test/e2e/corpus');
const skip = kernelUnavailable();

describe.skipIf(skip)(`corpus${skip ? ` (skipped: ${skip})` : ''}`, () => {
  for (const file of listCases(DIR, '.d')) {
    const name = file.slice(0, -2);
    test(name, () => {
      const script = path.join(DIR, file);
      const text = readFileSync(script, 'utf8');
      const m = /^\/\*\s*flags:(.*?)\*\//.exec(text);
      const flags = m ? m[1].trim().split(/\s+/).filter(Boolean) : [];
      const r = dtrace([...flags, '-s', `test/e2e/corpus/${file}`]);
      const want = (ext: string) => {
        const p = path.join(DIR, name + ext);
        return existsSync(p) ? readFileSync(p, 'utf8') : null;
      };
      const status = want('.status');
      const err = want('.err');
      expect(r.stdout).toBe(want('.out') ?? '');
      if (err !== null) expect(r.stderr).toBe(err);
      expect(r.status, r.stderr).toBe(status === null ? 0 : Number(status.trim()));
    });
  }
});

// Topic files: test/e2e/corpus/AREA/TOPIC.dtest.
const areas = readdirSync(DIR, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name).sort();
for (const area of areas) {
  for (const file of listCases(path.join(DIR, area), '.dtest')) {
    const topic = `${area}/${file.slice(0, -'.dtest'.length)}`;
    const parsed = parseTopic(readFileSync(path.join(DIR, area, file), 'utf8'), `test/e2e/corpus/${area}/${file}`);
    describe.skipIf(skip)(`${topic}${skip ? ` (skipped: ${skip})` : ''}`, () => {
      let work = '';
      let fileSkip: string | null = null;
      beforeAll(() => {
        work = mkdtempSync(path.join(tmpdir(), `dtrace-${area}-`));
        fileSkip = parsed.requires.map(unmet).find((w) => w !== null) ?? null;
        if (!fileSkip) for (const cmd of parsed.before) sh(cmd, work);
      });
      afterAll(() => {
        if (!fileSkip) for (const cmd of parsed.after) sh(cmd, work);
        if (work) rmSync(work, { recursive: true, force: true });
      });
      for (const c of parsed.cases) {
        test(`${topic}: ${c.name}`, async (ctx) => {
          if (fileSkip) return ctx.skip(fileSkip);
          const why = c.requires.map(unmet).find((w) => w !== null);
          if (why) return ctx.skip(why);
          try {
            for (const cmd of c.before) sh(cmd, work);
            const r = await runCase(c, work);
            expect(failures(c, r, work), `${topic}:${c.line}\nstdout:\n${r.stdout}\nstderr:\n${r.stderr}`).toEqual([]);
          } finally {
            for (const cmd of c.after) sh(cmd, work);
          }
        }, (c.timeout + 30) * 1000);
      }
    });
  }
}
