// The parsed D library kept on disk: parsing the library's files with Chevrotain is most of a
// one-liner's start-up when a program names a library type (tcp:::send's args[] and kin), and
// their text rarely changes. An entry is a library file's syntax tree, keyed by the file's text
// and the code that parsed it (so a changed file or a new dtrace is parsed again), with the
// type-name questions the parse asked: a file's parse depends on the typedefs loaded before it,
// so an entry serves only a run whose answers are the same.
//
// The cache is a directory of root's (systemPaths.cacheDir): an entry is read only from a
// directory and file owned by root (or by this user) and writable by no one else, since a
// syntax tree becomes BPF programs that run in the kernel. Anything amiss -- no directory, one
// another user could write, an unreadable or undecodable entry, a read-only file system --
// means parsing as without a cache, silently.

import { createHash } from 'node:crypto';
import { closeSync, constants, fstatSync, lstatSync, mkdirSync, openSync, readFileSync, readdirSync, renameSync, statSync, unlinkSync, writeFileSync, type Stats } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { deserialize, serialize } from 'node:v8';
import type * as A from './ast.js';
import { VERSION } from '../version.js';

/** Bumped when an entry's layout changes. */
const FORMAT = 1;

interface Entry {
  format: number;
  /** Each name the parse asked isTypeName about, and the answer. */
  queries: [string, boolean][];
  ast: A.Program;
}

/** Is this owned by root (or by us) and writable by nobody else? */
function trusted(st: Stats): boolean {
  const euid = process.geteuid?.() ?? -1;
  return (st.uid === 0 || st.uid === euid) && (st.mode & 0o022) === 0;
}

let stamp: string | undefined;

/** What identifies the parser that made an entry: this package's version and its code's files. */
function codeStamp(): string {
  if (stamp !== undefined) return stamp;
  const parts = [String(FORMAT), VERSION];
  // This module's file, and the parser's and lexer's beside it when dist/ is not bundled (in the
  // bundle this file is the parser as well).
  for (const name of ['', './parser.js', './lexer.js']) {
    try {
      const file = name === '' ? fileURLToPath(import.meta.url) : fileURLToPath(new URL(name, import.meta.url));
      const st = statSync(file);
      parts.push(`${file}:${st.size}:${st.mtimeMs}`);
    } catch {
      // not a separate file here
    }
  }
  stamp = parts.join('\n');
  return stamp;
}

function sha(...parts: string[]): string {
  const h = createHash('sha256');
  for (const p of parts) h.update(p).update('\0');
  return h.digest('hex').slice(0, 32);
}

/** The directory, when it can be trusted (created, as root's, when missing). */
function cacheDirectory(dir: string): string | undefined {
  if (dir === '') return undefined;
  try {
    let st: Stats;
    try {
      st = lstatSync(dir);
    } catch {
      mkdirSync(dir, { recursive: true, mode: 0o755 });
      st = lstatSync(dir);
    }
    return st.isDirectory() && trusted(st) ? dir : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The syntax tree of a library file, from the cache when an entry made from the same text by the
 * same code asked the same type-name questions and got today's answers, else from `parse` (then
 * stored). `parse` gets an isTypeName to ask instead of `isTypeName`, which it records.
 */
export function cachedParse(
  dir: string, path: string, text: string, isTypeName: (n: string) => boolean,
  parse: (isTypeName: (n: string) => boolean) => A.Program,
): A.Program {
  const where = cacheDirectory(dir);
  const prefix = sha(path);
  const name = `${prefix}-${sha(codeStamp(), text)}.ast`;
  if (where) {
    const cached = readEntry(join(where, name));
    if (cached && cached.queries.every(([n, answer]) => isTypeName(n) === answer)) return cached.ast;
  }
  const queries = new Map<string, boolean>();
  const ast = parse((n) => {
    const answer = isTypeName(n);
    queries.set(n, answer);
    return answer;
  });
  if (where) writeEntry(where, prefix, name, { format: FORMAT, queries: [...queries], ast });
  return ast;
}

function readEntry(file: string): Entry | undefined {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch {
    return undefined;
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile() || !trusted(st)) return undefined;
    const entry = deserialize(readFileSync(fd)) as Partial<Entry> | null;
    if (!entry || entry.format !== FORMAT || !Array.isArray(entry.queries) || !Array.isArray(entry.ast?.items)) return undefined;
    return entry as Entry;
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/** Store an entry (whole or not at all: written aside, then renamed), and drop the file's older ones. */
function writeEntry(dir: string, prefix: string, name: string, entry: Entry): void {
  const tmp = join(dir, `.${name}.${process.pid}`);
  try {
    writeFileSync(tmp, serialize(entry), { mode: 0o644, flag: 'wx' });
    renameSync(tmp, join(dir, name));
    for (const old of readdirSync(dir)) {
      if (old.startsWith(`${prefix}-`) && old !== name) unlinkSync(join(dir, old));
    }
  } catch {
    try {
      unlinkSync(tmp);
    } catch {
      // never written
    }
  }
}
