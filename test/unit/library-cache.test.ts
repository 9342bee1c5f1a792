import { chmodSync, chownSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cachedParse } from '../../src/compiler/library-cache.js';
import { parse } from '../../src/compiler/parser.js';
import type * as A from '../../src/compiler/ast.js';

const asRoot = process.geteuid?.() === 0;

describe('the parsed D library cache', () => {
  let dir: string;
  let parses: number;
  const typeNames = new Set<string>();
  const isTypeName = (n: string) => typeNames.has(n);
  const load = (text: string, path = '/lib/x.d'): A.Program => cachedParse(dir, path, text, isTypeName, (ask) => {
    parses++;
    return parse(text, { file: path, isTypeName: ask });
  });

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'dtrace-cache-'));
    chmodSync(dir, 0o755);
    parses = 0;
    typeNames.clear();
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('serves an unchanged file from the cache and parses a changed one again', () => {
    const a = load('inline int A = 1;');
    expect(parses).toBe(1);
    expect(readdirSync(dir)).toHaveLength(1);
    expect(load('inline int A = 1;')).toEqual(a);
    expect(parses).toBe(1);
    const b = load('inline int A = 2;');
    expect(parses).toBe(2);
    expect(b).not.toEqual(a);
    // The file's older entry is gone: one entry per library file.
    expect(readdirSync(dir)).toHaveLength(1);
    load('inline int A = 2;');
    expect(parses).toBe(2);
  });

  it('parses again when a type name the parse asked about has another answer', () => {
    const text = 'inline int B = (bar_t)-1;';
    load(text);
    load(text);
    expect(parses).toBe(1);
    const before = load(text);
    typeNames.add('bar_t');
    const after = load(text); // a cast now, not a subtraction
    expect(parses).toBe(2);
    expect(after).not.toEqual(before);
  });

  it.skipIf(!asRoot)('ignores a cache directory another user owns or others may write (needs root to chown)', () => {
    chownSync(dir, 65534, 65534);
    load('inline int A = 1;');
    load('inline int A = 1;');
    expect(parses).toBe(2);
    expect(readdirSync(dir)).toHaveLength(0);
    chownSync(dir, 0, 0);
    chmodSync(dir, 0o777);
    load('inline int A = 1;');
    load('inline int A = 1;');
    expect(parses).toBe(4);
    expect(readdirSync(dir)).toHaveLength(0);
  });

  it.skipIf(!asRoot)('ignores an entry another user owns or others may write (needs root to chown)', () => {
    load('inline int A = 1;');
    const [entry] = readdirSync(dir);
    chmodSync(join(dir, entry), 0o666);
    load('inline int A = 1;');
    expect(parses).toBe(2); // and it was replaced by one of its own
    chownSync(join(dir, entry), 65534, 65534);
    chmodSync(join(dir, entry), 0o644);
    load('inline int A = 1;');
    expect(parses).toBe(3);
  });

  it('parses as without a cache when the entry is not one, or there is no directory', () => {
    load('inline int A = 1;');
    const [entry] = readdirSync(dir);
    writeFileSync(join(dir, entry), 'not a syntax tree');
    load('inline int A = 1;');
    expect(parses).toBe(2);
    rmSync(dir, { recursive: true });
    writeFileSync(dir, ''); // a file where the directory should be
    load('inline int A = 1;');
    load('inline int A = 1;');
    expect(parses).toBe(4);
  });
});
