import { describe, expect, it } from 'vitest';
import { compileError, fire } from '../helpers/dif.js';

describe('translators', () => {
  const num = 'struct num { long v; char c; };\ntranslator struct num < int x > { v = x + 1; c = x + 0x101; };\n';

  it('inlines the member expression with the input for the parameter', () => {
    expect(fire(`${num}BEGIN { trace(xlate <struct num> (41).v); trace(xlate <struct num *> (1)->c); }`)).toEqual([42n, 2n]);
  });

  it('reaches translated members through an inline', () => {
    expect(fire(`${num}inline struct num *n = xlate <struct num *> (9);\nBEGIN { trace(n->v); }`)).toEqual([10n]);
  });

  it('gives the D library psinfo_t and lwpsinfo_t of curthread', () => {
    expect(compileError('BEGIN { trace(curpsinfo->pr_size); }')).toBe('D_XLATE_NOCONV: translator does not define conversion for member: pr_size');
    expect(compileError('BEGIN { trace(curpsinfo->nothere); }')).toBe('D_XLATE_NOCONV: translator does not define conversion for member: nothere');
  });

  it.each([
    ['struct o { int a; };\ntranslator struct o < int x > { a = x; };\ntranslator struct o < int y > { a = y; };',
      'D_XLATE_REDECL: translator from int to struct o has already been declared'],
    ['translator int < int x > { a = x; };', 'D_XLATE_SOU: translator output type must be a struct or union'],
    ['struct f;\ntranslator struct f < int x > { a = x; };', 'D_XLATE_SOU: incomplete struct/union/enum struct f'],
    ['struct o { int a; };\ntranslator struct o < int x > { b = x; };', 'D_XLATE_MEMB: translator member b is not a member of struct o'],
    ['struct o { int a; };\ntranslator struct o < int x > { a = "s"; };',
      'D_XLATE_INCOMPAT: translator member a definition uses incompatible types: "int" = "string"'],
    ['struct o { int a; };\ntranslator struct o < int x > { a = x; };\nBEGIN { trace(xlate <struct o *> ("s")->a); }',
      'D_XLATE_NONE: cannot translate from "string" to "struct o *"'],
    ['struct o { int a; };\ntranslator struct o < int x > { a = x; };\nBEGIN { trace(xlate <struct o> (1)->a); }',
      'D_OP_PTR: operator -> must be applied to a pointer'],
    ['struct o { int a; };\ntranslator struct o < int x > { a = x; };\nBEGIN { trace(xlate <struct o *> (1).a); }',
      'D_OP_SOU: operator . cannot be applied to type "struct o *"; must be applied to a struct or union'],
  ])('reports %s', (src, want) => {
    expect(compileError(`${src}\nBEGIN { exit(0); }`)).toBe(want);
  });
});

describe('if / else', () => {
  it('runs the taken branch only', () => {
    expect(fire('BEGIN { x = 3; if (x > 2) trace(1); else trace(2); if (x == 0) { trace(3); } else if (x == 3) trace(4); trace(5); }'))
      .toEqual([1n, 4n, 5n]);
  });

  it('keeps the clause predicate over every block', () => {
    expect(fire('BEGIN /0/ { trace(1); if (1) trace(2); trace(3); } BEGIN { trace(4); }')).toEqual([4n]);
  });
});

describe('kernel symbols', () => {
  it('takes the address of a kernel function from kallsyms', () => {
    const [a, b] = fire('BEGIN { trace((uint64_t)&`vfs_read); trace((uint64_t)&vmlinux`vfs_read); }');
    expect(a).toBe(b);
    expect(a).not.toBe(0n);
  });

  it('reports unknown symbols and symbols without types as DTrace does', () => {
    expect(compileError('BEGIN { trace(`no_such_symbol); }')).toBe('D_IDENT_UNDEF: failed to resolve `no_such_symbol: Unknown symbol name');
    expect(compileError('BEGIN { trace(vmlinux`no_such_symbol); }')).toBe('D_IDENT_UNDEF: failed to resolve vmlinux`no_such_symbol: Unknown symbol name');
    expect(compileError('BEGIN { trace(`_stext); }'))
      .toBe('D_SYM_NOTYPES: no symbolic type information is available for vmlinux`_stext: No type information available for symbol');
  });
});
