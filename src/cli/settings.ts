// Pass 2 over dtrace(1)'s command line: the options in order (validated as dtrace_setopt() does)
// and the programs they name; then the programs' text (scripts read, -C preprocessed) and the
// macro variables they may use.

import { closeSync, openSync, readFileSync, readSync } from 'node:fs';
import { defaultMacros, type Source } from '../compiler/compile.js';
import { CUMULATIVE, isSet, OptionError, parseOptionValue } from '../options.js';
import type { ParsedArgs } from './args.js';
import { CppError, preprocess } from './cpp.js';
import { errnoText } from '../sys/errno.js';
import { Fatal } from './fatal.js';

type SourceKind = Source['kind'];

/** What the options of pass 2 say. */
export interface Settings {
  options: Map<string, string>;
  sources: { kind: SourceKind; text: string }[];
  cppArgs: string[];
  output?: string;
  verbose: number;
  disassemble: boolean;
  /** -L directories of D library files, in command-line order. */
  libdirs: string[];
}

/** Pass 2: options in command-line order, validated as dtrace_setopt() does. */
export function readSettings(args: ParsedArgs): Settings {
  const s: Settings = { options: new Map(), sources: [], cppArgs: [], verbose: 0, disassemble: false, libdirs: [] };
  const setopt = (name: string, value: string | null, shown: string) => {
    try {
      const [n, v] = parseOptionValue(name, value);
      s.options.set(n, v);
      if (CUMULATIVE.has(n)) s.cppArgs.push((n === 'define' ? '-D' : n === 'undef' ? '-U' : '-I') + v);
    } catch (e) {
      if (e instanceof OptionError) throw new Fatal(`failed to set ${shown}: ${e.reason}`);
      throw e;
    }
  };
  for (const { letter, value } of args.options) {
    switch (letter) {
      case 'b': setopt('bufsize', value!, `-b ${value}`); break;
      case 'C': s.options.set('cpp', 'set'); break;
      case 'D': setopt('define', value!, `-D ${value}`); break;
      case 'F': setopt('flowindent', null, '-F'); break;
      case 'H': setopt('cpphdrs', null, '-H'); break;
      case 'I': setopt('incdir', value!, `-I ${value}`); break;
      case 'L': setopt('libdir', value!, `-L ${value}`); s.libdirs.push(value!); break;
      case 'o': s.output = value; break;
      case 'q': setopt('quiet', null, '-q'); break;
      case 'S': s.disassemble = true; break;
      case 'U': setopt('undef', value!, `-U ${value}`); break;
      case 'v': s.verbose++; break;
      case 'w': setopt('destructive', null, '-w'); break;
      case 'X': setopt('stdc', value!, `-X ${value}`); break;
      case 'Z': s.options.set('zdefs', 'set'); break;
      case 'x': {
        const eq = value!.indexOf('=');
        const name = eq < 0 ? value! : value!.slice(0, eq);
        setopt(name, eq < 0 ? null : value!.slice(eq + 1), `-x ${name}`);
        if (name === 'libdir') s.libdirs.push(s.options.get('libdir')!); // as -L
        break;
      }
      case 'n': case 'P': case 'm': case 'f': case 'i': case 's': case 'M':
        s.sources.push({ kind: letter, text: value! });
        break;
      default:
        break; // modes (pass 1) and processes (pass 3)
    }
  }
  return s;
}

/** The macro variables of this dtrace process, with $target. */
export function macroTable(target: number): Map<string, bigint> {
  const m = defaultMacros();
  m.set('target', BigInt(target));
  try {
    // /proc/self/stat: pid (comm) state ppid pgrp session ...
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    m.set('pgid', BigInt(f[2]));
    m.set('sid', BigInt(f[3]));
  } catch { /* no /proc: leave them undefined */ }
  return m;
}

/** The most of a script dtrace reads: -s /dev/zero must fail, not fill memory. */
const MAX_SCRIPT_BYTES = 64 * 1024 * 1024;

/** A script's text: a file, or what a pipe or device (-s /dev/stdin) gives, up to MAX_SCRIPT_BYTES. */
function readScript(file: string): string {
  const fd = openSync(file, 'r');
  try {
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const chunk = Buffer.alloc(1 << 20);
      const n = readSync(fd, chunk, 0, chunk.length, null);
      if (n === 0) break;
      total += n;
      if (total > MAX_SCRIPT_BYTES) throw Object.assign(new Error('file too large'), { code: 'EFBIG' });
      chunks.push(chunk.subarray(0, n));
    }
    return Buffer.concat(chunks).toString('utf8');
  } finally {
    closeSync(fd);
  }
}


/** Read (and with -C preprocess) the scripts; descriptions pass as they are. */
export function loadSources(s: Settings): Source[] {
  return s.sources.map((src) => {
    if (src.kind !== 's') return { kind: src.kind, text: src.text, name: src.text };
    let text: string;
    try {
      text = readScript(src.text);
    } catch (e) {
      throw new Fatal(`failed to open ${src.text}: ${errnoText(e)}`);
    }
    if (isSet(s.options, 'cpp')) {
      try {
        text = preprocess(text, {
          path: s.options.get('cpppath'), args: s.cppArgs, headers: isSet(s.options, 'cpphdrs'), traditional: s.options.get('stdc') === 's',
        });
      } catch (e) {
        if (e instanceof CppError) throw new Fatal(`failed to compile script ${src.text}: ${e.message}`);
        throw e;
      }
    }
    return { kind: 's', text, name: src.text };
  });
}
