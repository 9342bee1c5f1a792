// Rules of the source's shape that the dependency check (.dependency-cruiser.cjs) cannot state.
import { describe, expect, test } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from '../helpers/run.js';

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const p = path.join(dir, d.name);
    return d.isDirectory() ? sources(p) : p.endsWith('.ts') ? [p] : [];
  });
}

describe('structure', () => {
  test('no stage below the CLI reads the environment: options and switches come in as arguments', () => {
    const readers = sources(path.join(ROOT, 'src'))
      .filter((f) => !f.includes(`${path.sep}cli${path.sep}`))
      .filter((f) => /process\.env\b/.test(readFileSync(f, 'utf8')))
      .map((f) => path.relative(ROOT, f));
    expect(readers).toEqual([]);
  });
});
