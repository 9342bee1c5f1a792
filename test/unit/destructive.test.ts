// Destructive actions at compile time: what each compiles to, the prototypes libdtrace checks,
// the refusals that Linux needs, and which programs need -w.
import { describe, expect, test } from 'vitest';
import * as D from '../../src/dif/constants.js';
import { usesDestructiveActions } from '../../src/compiler/destructive.js';
import { compileError, compileScript } from '../helpers/dif.js';

describe('destructive actions (compiler)', () => {
  test('each compiles to its action kind, system() with its format', () => {
    const kinds = (src: string) => compileScript(src).ecbs[0].actions.map((a) => a.kind);
    expect(kinds('BEGIN { raise(9); }')).toEqual([D.DTRACEACT_RAISE]);
    expect(kinds('BEGIN { stop(); }')).toEqual([D.DTRACEACT_STOP]);
    expect(kinds('BEGIN { chill(1000); }')).toEqual([D.DTRACEACT_CHILL]);
    const sys = compileScript('BEGIN { system("echo %d %s", 1, "x"); }').ecbs[0].actions;
    expect(sys.map((a) => a.kind)).toEqual([D.DTRACEACT_SYSTEM, D.DTRACEACT_DIFEXPR]);
    expect(sys[0].format).toBe('echo %d %s');
    const out = compileScript('BEGIN { copyoutstr("x", 0x1000, 2); }').ecbs[0].actions;
    expect(out.map((a) => a.kind)).toEqual([D.DTRACEACT_DIFEXPR]);
    expect(out[0].difo!.insns.some((i) => i >>> 24 === D.DIF_OP_CALL && ((i >>> 8) & 0xffff) === D.DIF_SUBR_COPYOUTSTR)).toBe(true);
  });

  test('programs that need -w', () => {
    expect(usesDestructiveActions(compileScript('BEGIN { raise(1); }'))).toBe(true);
    expect(usesDestructiveActions(compileScript('BEGIN { system("true"); }'))).toBe(true);
    expect(usesDestructiveActions(compileScript('BEGIN { copyout(alloca(4), 0x1000, 4); }'))).toBe(true);
    expect(usesDestructiveActions(compileScript('BEGIN { trace(1); exit(0); }'))).toBe(false);
  });

  const errors: [string, string][] = [
    ['BEGIN { raise(); }', 'D_PROTO_LEN: raise( ) prototype mismatch: 0 args passed, 1 expected'],
    ['BEGIN { raise("x"); }', 'D_PROTO_ARG: raise( ) argument #1 is incompatible with prototype:\n\tprototype: int\n\t argument: string'],
    ['BEGIN { stop(1); }', 'D_PROTO_LEN: stop( ) prototype mismatch: 1 arg passed, 0 expected'],
    ['BEGIN { chill(1, 2); }', 'D_PROTO_LEN: chill( ) prototype mismatch: 2 args passed, 1 expected'],
    ['BEGIN { system(); }', 'D_PROTO_LEN: system( ) prototype mismatch: 0 args passed, at least 1 expected'],
    ['BEGIN { copyout("x", 1); }', 'D_PROTO_LEN: copyout( ) prototype mismatch: 2 args passed, 3 expected'],
    ['BEGIN { copyoutstr(1, 2, 3); }', 'D_PROTO_ARG: copyoutstr( ) argument #1 is incompatible with prototype:\n\tprototype: char *\n\t argument: int'],
    ['BEGIN { panic(); }', 'D_ACT_UNSUPP: panic( ) is not available on Linux: eBPF programs cannot panic the Linux kernel'],
    ['BEGIN { breakpoint(); }', 'D_ACT_UNSUPP: breakpoint( ) is not available on Linux: eBPF programs cannot enter a kernel debugger on Linux'],
  ];
  test.each(errors)('%s', (src, message) => {
    expect(compileError(src)).toBe(message);
  });
});
