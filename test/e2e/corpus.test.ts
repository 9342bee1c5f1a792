// The end-to-end corpus: each test/e2e/corpus/NAME.d runs as `dtrace [flags] -s NAME.d` on the
// real kernel, and its stdout (and stderr and exit status, where given) must match exactly.
//   NAME.d       the script; a first line `/* flags: -q -x strsize=64 */` adds options
//   NAME.out     expected stdout
//   NAME.err     expected stderr (optional; otherwise stderr is not compared)
//   NAME.status  expected exit status (optional; default 0)
import { describe, expect, test } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT, dtrace, kernelUnavailable, listCases } from '../helpers/run.js';

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
