import { describe, expect, test } from 'vitest';
import { parseArgs } from '../../src/cli/args.js';
import { Fatal } from '../../src/cli/fatal.js';
import { readMode, type Mode } from '../../src/cli/mode.js';
import { readSettings } from '../../src/cli/settings.js';
import { listSpecs } from '../../src/cli/list.js';

// dtrace(1)'s passes over its command line, each a function of the parsed arguments alone.

const mode = (...argv: string[]) => readMode(parseArgs(argv)) as Mode;
const refusal = (f: () => unknown): { message: string; status: number } => {
  try {
    f();
  } catch (e) {
    if (e instanceof Fatal) return { message: e.message, status: e.status };
    throw e;
  }
  throw new Error('not refused');
};

describe('pass 1: the mode', () => {
  test('tracing, -l and -e', () => {
    expect(mode('-n', 'BEGIN')).toMatchObject({ listing: false, execute: true, buffered: false });
    expect(mode('-l', '-n', 'BEGIN')).toMatchObject({ listing: true, execute: true });
    expect(mode('-e', '-n', 'BEGIN')).toMatchObject({ listing: false, execute: false });
    expect(mode('-O', '-O', '-n', 'BEGIN').count('O')).toBe(2);
  });

  test('the combinations dtrace refuses, with its words and status', () => {
    expect(refusal(() => mode('-l', '-h', '-s', 'x.d'))).toEqual({ message: 'only one of the [-AGhlV] options can be specified at a time', status: 2 });
    expect(refusal(() => mode('-B', '-l', '-n', 'BEGIN'))).toEqual({ message: '-B not valid in combination with [-AGl] options', status: 2 });
    expect(refusal(() => mode('-B', '-o', 'out', '-n', 'BEGIN'))).toEqual({ message: '-B not valid in combination with -o option', status: 2 });
    expect(refusal(() => mode('-a', '-n', 'BEGIN')).status).toBe(1);
  });
});

describe('pass 2: options and programs in command-line order', () => {
  test('flags become options; programs keep their kind and order', () => {
    const s = readSettings(parseArgs(['-q', '-b', '8k', '-n', 'BEGIN', '-x', 'strsize=8', '-s', 'a.d', '-P', 'syscall', '-S', '-v', '-v']));
    expect(s.options.get('quiet')).toBe('set');
    expect(s.options.get('bufsize')).toBe(String(8 * 1024));
    expect(s.options.get('strsize')).toBe('8');
    expect(s.sources).toEqual([{ kind: 'n', text: 'BEGIN' }, { kind: 's', text: 'a.d' }, { kind: 'P', text: 'syscall' }]);
    expect(s.disassemble).toBe(true);
    expect(s.verbose).toBe(2);
  });

  test('-D, -U and -I become the preprocessor\'s arguments; -L and -x libdir the library directories', () => {
    const s = readSettings(parseArgs(['-D', 'X=1', '-U', 'Y', '-I', '/inc', '-L', '/lib1', '-x', 'libdir=/lib2', '-n', 'BEGIN']));
    expect(s.cppArgs).toEqual(['-DX=1', '-UY', '-I/inc']);
    expect(s.libdirs).toEqual(['/lib1', '/lib2']);
  });

  test('a bad value is refused as dtrace_setopt() refuses it, naming the flag', () => {
    expect(refusal(() => readSettings(parseArgs(['-x', 'nosuchoption=1', '-n', 'BEGIN']))).message).toMatch(/^failed to set -x nosuchoption: /);
    expect(refusal(() => readSettings(parseArgs(['-b', 'lots', '-n', 'BEGIN']))).message).toMatch(/^failed to set -b lots: /);
  });
});

describe('-l: what each description names', () => {
  test('macro variables and arguments are expanded in a description', () => {
    // -x argref: each description is a program, and the first does not use $1.
    const args = parseArgs(['-l', '-x', 'argref', '-n', 'pid$target:::entry', '-n', 'syscall::$1:entry', 'read']);
    const specs = listSpecs(null, readSettings(args), new Map([['target', 42n]]), args.operands);
    expect(specs).toEqual([{ kind: 'n', text: 'pid42:::entry' }, { kind: 'n', text: 'syscall::read:entry' }]);
  });

  test('a description that leaves the last macro argument unused is refused, as when tracing', () => {
    const args = parseArgs(['-l', '-n', 'dtrace:::BEGIN', '-n', 'syscall::$1:entry', 'read']);
    expect(() => listSpecs(null, readSettings(args), new Map(), args.operands))
      .toThrow("invalid probe specifier dtrace:::BEGIN: extraneous argument 'read' ($1 is not referenced)");
  });
});
