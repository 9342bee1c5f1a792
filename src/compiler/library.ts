// The D library: .d files of declarations, inlines and translators that every program sees, read
// from lib/dtrace/ of this package and from each `-L dir` (in that order, files by name, each
// after the libraries its `#pragma D depends_on library` lines name, and none whose provider or
// module is not here), as libdtrace loads its library directories before compiling a program.
// Library translators and inlines are checked when a program first uses them, and the package's
// own library is not even parsed for a program that cannot name anything it declares, nor
// enables a probe whose args[] are of its types (`libraryWords`).

import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CodeGenerator } from './codegen.js';
import { DtraceError } from './errors.js';
import { cachedParse } from './library-cache.js';
import { parse } from './parser.js';
import { defineTranslator } from './translators.js';
import { isVariableDeclaration } from './variables.js';
import { systemPaths } from '../sys/paths.js';

/** The library directory shipped with the package. */
export const DEFAULT_LIBRARY_DIR = fileURLToPath(new URL('../../lib/dtrace/', import.meta.url));

export interface LibraryFile {
  name: string;
  text: string;
}

/** The .d files of the library directories, in load order. A missing directory has none. */
export function libraryFiles(dirs: string[]): LibraryFile[] {
  const files: LibraryFile[] = [];
  for (const dir of dirs) {
    let names: string[];
    try {
      names = readdirSync(dir).filter((n) => n.endsWith('.d')).sort();
    } catch {
      continue;
    }
    for (const n of names) {
      const path = join(dir, n);
      // A library is a file: a directory (or a FIFO) that happens to end in .d is not one.
      if (!statSync(path).isFile()) continue;
      files.push({ name: path, text: readFileSync(path, 'utf8') });
    }
  }
  return files;
}

/**
 * The words (identifier-like tokens) of D text: comments, string and character constants left
 * out, since neither can name a declaration (and a "/*" inside a string starts no comment).
 */
export function wordsOf(text: string): Set<string> {
  const words = new Set<string>();
  const token = /\/\*(?:[^*]|\*(?!\/))*(?:\*\/)?|\/\/[^\n]*|"(?:[^"\\\n]|\\[\s\S])*(?:"|$)|'(?:[^'\\\n]|\\[\s\S])*(?:'|$)|[0-9][0-9A-Za-z_.]*|[A-Za-z_][0-9A-Za-z_]*/gm;
  for (const m of text.matchAll(token)) {
    const c = m[0].charCodeAt(0);
    if ((c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95) words.add(m[0]);
  }
  return words;
}

/**
 * The names the library files may give a program: every word of theirs that a program does not
 * have without them (`known`: keywords, built-in variables, D's own types). A program none of
 * whose words is one of these cannot use the library, and its parse -- a good part of a
 * one-liner's start-up -- is skipped. Erring on the side of loading costs only time.
 */
export function libraryWords(files: LibraryFile[], known: (word: string) => boolean): Set<string> {
  const declared = new Set<string>();
  for (const f of files) {
    let words = libraryTextWords.get(f.text);
    if (words === undefined) {
      words = wordsOf(f.text);
      if (libraryTextWords.size < LIBRARY_TEXTS_MAX) libraryTextWords.set(f.text, words);
    }
    for (const w of words) if (!known(w)) declared.add(w);
  }
  return declared;
}

/**
 * Library files' words by their text: scanning the package's library was a few milliseconds of
 * every one-liner's start-up, so the start-up snapshot holds them (warmLibraryWords); a file
 * whose text has changed since is scanned again.
 */
const libraryTextWords = new Map<string, Set<string>>();
const LIBRARY_TEXTS_MAX = 256;

/** Scan the package's own library now (the start-up snapshot's warm-up keeps the result). */
export function warmLibraryWords(): void {
  for (const f of libraryFiles([DEFAULT_LIBRARY_DIR])) libraryTextWords.set(f.text, wordsOf(f.text));
}

/** Whether any of these texts (program sources, or a probe's argument types) names a library word. */
export function namesLibrary(declared: Set<string>, texts: string[]): boolean {
  return texts.some((t) => [...wordsOf(t)].some((w) => declared.has(w)));
}

/** `#pragma D depends_on CLASS NAME` lines. */
const DEPENDS_ON = /^[ \t]*#[ \t]*pragma[ \t]+D[ \t]+depends_on[ \t]+(\S+)[ \t]+(\S+)/gm;

/**
 * What a library file depends on: providers, modules, and libraries (another file of its own
 * directory, named by its path here).
 */
export function libraryDependencies(f: LibraryFile): { cls: string; name: string }[] {
  return [...f.text.matchAll(DEPENDS_ON)].map((m) => ({ cls: m[1], name: m[1] === 'library' ? join(dirname(f.name), m[2]) : m[2] }));
}

/**
 * The library files in the order they load: each after the libraries it depends on, else in
 * file order (ours name no dependencies: they load by name, as before). As libdtrace, a
 * dependency on a file not loaded is refused, and so is a cycle, which libdtrace names by the
 * first edge against the finishing order of a depth-first walk from each file to its
 * dependents. The errors carry no tag and no line: dtrace(1) reports them against the program.
 */
export function orderLibraries(files: LibraryFile[]): LibraryFile[] {
  const byName = new Map(files.map((f) => [f.name, f]));
  const dependencies = new Map<string, string[]>(files.map((f) => [f.name, []]));
  const dependents = new Map<string, string[]>(files.map((f) => [f.name, []]));
  for (const f of files) {
    for (const { name: dep } of libraryDependencies(f).filter((d) => d.cls === 'library')) {
      if (!byName.has(dep)) throw new DtraceError('', `Invalid library dependency in ${f.name}: ${dep}`);
      dependencies.get(f.name)!.push(dep);
      const list = dependents.get(dep)!;
      if (!list.includes(f.name)) list.push(f.name);
    }
  }
  let count = 0;
  const finish = new Map<string, number>();
  const walk = (n: string) => {
    finish.set(n, 0);
    for (const d of dependents.get(n)!) if (!finish.has(d)) walk(d);
    finish.set(n, ++count);
  };
  for (const f of files) if (!finish.has(f.name)) walk(f.name);
  for (const f of files) {
    for (const d of dependents.get(f.name)!) {
      if (finish.get(d)! > finish.get(f.name)!) throw new DtraceError('', `Cyclic dependency detected: ${f.name} => ${d}`);
    }
  }
  const ordered: LibraryFile[] = [];
  const placed = new Set<string>();
  const place = (n: string) => {
    if (placed.has(n)) return;
    placed.add(n);
    for (const d of dependencies.get(n)!) place(d);
    ordered.push(byName.get(n)!);
  };
  for (const f of files) place(f.name);
  return ordered;
}

/** Compile one library file into the program's scope: its types, inlines and translators. */
export function loadLibrary(cg: CodeGenerator, file: LibraryFile): void {
  // Kernel typedefs are not type names here: reading the kernel's BTF for every run would cost
  // more than the library itself (library files name kernel types as struct tags).
  const ast = cachedParse(systemPaths.cacheDir, file.name, file.text, (n) => cg.types.isDTypeName(n),
    (isTypeName) => parse(file.text, { file: file.name, isTypeName }));
  for (const item of ast.items) {
    switch (item.kind) {
      case 'Pragma':
        break; // binding, depends_on and attributes pragmas: nothing to enforce here
      case 'Declaration':
        if (!cg.types.declare(item) && isVariableDeclaration(item)) cg.vars.declare(item);
        break;
      case 'InlineDefinition':
        cg.types.defineInline(item, (n) => cg.global(n) !== undefined);
        break;
      case 'TranslatorDefinition':
        defineTranslator(cg.difoGen(), item, true);
        break;
      default:
        throw new DtraceError('D_SYNTAX', `a D library may hold only declarations, inlines and translators`, { line: item.line });
    }
  }
}
