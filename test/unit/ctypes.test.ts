// The C type system of the D front end: declarations and layout (ctypes.ts), kernel types from
// BTF, and the code generated for typed expressions (typed-expr.ts), run on the reference DIF
// machine over fake kernel memory laid out with the kernel's own BTF offsets.
import { describe, expect, test } from 'vitest';
import { existsSync } from 'node:fs';
import { compileError, fire } from '../helpers/dif.js';
import { parse } from '../../src/compiler/parser.js';
import { TypeScope, sizeOf } from '../../src/compiler/ctypes.js';
import { DifMachine } from '../../src/dif/machine.js';
import { loadKernelBtf } from '../../src/btf/btf.js';
import type * as A from '../../src/compiler/ast.js';
import { systemPaths } from '../../src/sys/paths.js';

const haveBtf = existsSync(`${systemPaths.btfDir}/vmlinux`);


/** A scope with the program's declarations and no kernel types. */
function declared(text: string): TypeScope {
  const scope = new TypeScope({ kernel: () => undefined });
  for (const item of parse(text, { file: 't.d' }).items) if (item.kind === 'Declaration') scope.declare(item);
  return scope;
}

function typeOf(scope: TypeScope, cast: string) {
  const p = parse(`BEGIN { trace(sizeof(${cast})); }`, { isTypeName: (n) => scope.isTypeName(n) });
  const e = ((p.items[0] as A.Clause).body![0] as A.ExpressionStatement).expression as A.Call;
  return scope.resolve((e.args[0] as A.SizeofType).type.type);
}

describe('declarations and layout', () => {
  test('struct layout as DTrace\'s CTF: alignment padding, none at the end', () => {
    const s = declared('struct s { int a; char b[10]; }; struct t { char c; long l; short h; };');
    expect(sizeOf(typeOf(s, 'struct s'))).toBe(14);
    const t = typeOf(s, 'struct t');
    expect(sizeOf(t)).toBe(18);
    if (t.kind !== 'struct') throw new Error('not a struct');
    expect(t.def.members().map((m) => [m.name, m.bitOffset / 8])).toEqual([['c', 0], ['l', 8], ['h', 16]]);
  });

  test('a bit-field takes the whole bytes its width needs, aligned to them (as the reference)', () => {
    const s = declared('struct b { unsigned a : 3; int b : 5; unsigned c : 30; char d; };');
    const t = typeOf(s, 'struct b');
    if (t.kind !== 'struct') throw new Error('not a struct');
    expect(t.def.members().map((m) => [m.name, m.bitOffset, m.bits])).toEqual([['a', 0, 3], ['b', 8, 5], ['c', 32, 30], ['d', 64, 0]]);
    expect(sizeOf(t)).toBe(9);
  });

  test('unions, enums, typedefs and arrays of typedefs', () => {
    const s = declared('union u { char c; long l; int v[3]; }; enum e { A = 2, B }; typedef union u u_t; typedef u_t pair_t[2];');
    expect(sizeOf(typeOf(s, 'union u'))).toBe(12);
    expect(sizeOf(typeOf(s, 'pair_t'))).toBe(24);
    expect(sizeOf(typeOf(s, 'enum e'))).toBe(4);
    expect(s.enumerators.get('B')?.value).toBe(3n);
  });

  test('an unknown tag is a forward declaration, completed by a later definition', () => {
    const s = declared('struct fwd; struct holder { struct fwd *p; }; struct fwd { char x[5]; };');
    expect(sizeOf(typeOf(s, 'struct holder'))).toBe(8);
    expect(sizeOf(typeOf(s, 'struct fwd'))).toBe(5);
  });

  test('declaration errors carry DTrace tags and messages', () => {
    expect(compileError('struct s { int a; }; struct s { int b; };')).toBe('D_DECL_TYPERED: type redeclared: struct s');
    expect(compileError('struct s { int a : 40; };')).toBe('D_DECL_BFSIZE: bit-field too big for type: a');
    expect(compileError('struct s { int a; int a; };')).toBe("D_UNKNOWN: failed to define member 'a': Duplicate member or variable name.");
    expect(compileError('enum e { A = 0x80000000 };')).toBe("D_DECL_ENOFLOW: enumerator 'A' value overflows INT_MAX (2147483647)");
    expect(compileError('inline string s = 1;')).toBe('D_OP_INCOMPAT: inline s definition uses incompatible types: "string" = "int"');
  });
});

describe('typed expressions on the reference machine', () => {
  test('sizeof, offsetof, enumerators and inlines are constants', () => {
    const v = fire(`struct s { char c; int i; }; enum e { X = 7 }; inline int N = X * 2;
      BEGIN { trace(sizeof(struct s)); trace(offsetof(struct s, i)); trace(X); trace(N); trace(sizeof(uint16_t)); }`);
    expect(v).toEqual([8n, 4n, 7n, 14n, 2n]);
  });

  test('casts truncate and extend as C does', () => {
    expect(fire('BEGIN { trace((char)0x1ff); trace((unsigned char)-1); trace((short)0x18000); trace((int)0x100000002); }'))
      .toEqual([-1n, 255n, -32768n, 2n]);
  });

  test('members load with their width and sign; bit-fields are extracted; pointers scale', () => {
    const m = new DifMachine();
    const mem = new Uint8Array(32);
    const dv = new DataView(mem.buffer);
    dv.setInt16(0, -5, true); // s
    dv.setUint32(4, 0xdeadbeef, true); // u
    mem[8] = 0b1111_1101; // a:3 = 5 (a byte of its own)
    mem[9] = 0b1001_0110; // b:5 = 0b10110 = 22 -> signed -10
    dv.setInt32(12, 100, true), dv.setInt32(16, 200, true); // v[0], v[1]
    m.mapKernel(0x1000n, mem);
    const v = fire(`struct k { short s; unsigned int u; unsigned int a : 3; int b : 5; int v[2]; };
      BEGIN {
        trace(((struct k *)0x1000)->s); trace(((struct k *)0x1000)->u);
        trace(((struct k *)0x1000)->a); trace(((struct k *)0x1000)->b);
        trace(((struct k *)0x1000)->v[1]); trace(*(&((struct k *)0x1000)->v[0] + 1));
        trace(&((struct k *)0x1000)->v[1] - &((struct k *)0x1000)->v[0]);
        trace((*(struct k *)0x1000).u == 0xdeadbeef);
      }`, m);
    expect(v).toEqual([-5n, 0xdeadbeefn, 5n, -10n, 200n, 200n, 1n, 1n]);
  });

  test('operator errors are DTrace\'s', () => {
    expect(compileError('BEGIN { trace(pid->x); }')).toBe('D_OP_PTR: operator -> must be applied to a pointer');
    expect(compileError('BEGIN { trace(*pid); }')).toBe('D_DEREF_NONPTR: cannot dereference non-pointer type');
    expect(compileError('BEGIN { x = 1; trace(&x); }')).toBe('D_ADDROF_VAR: cannot take address of dynamic variable');
    expect(compileError('struct s { int a; }; BEGIN { trace(((struct s *)0) * 2); }')).toBe('D_OP_ARITH: operator * requires operands of arithmetic type');
    expect(compileError('struct s { int a; }; BEGIN { trace((struct s)1); }')).toBe('D_CAST_INVAL: invalid cast expression: "int" to "struct s"');
    expect(compileError('struct s { int a; }; BEGIN { trace(((struct s *)0)->b); }')).toBe('D_TYPE_MEMBER: b is not a member of struct s');
  });
});

describe.skipIf(!haveBtf)(`kernel types from BTF${haveBtf ? '' : ' (skipped: the kernel has no BTF)'}`, () => {
  test('curthread is a struct task_struct * with the kernel\'s layout', () => {
    const btf = loadKernelBtf();
    const tgid = btf.memberPath('task_struct', 'tgid').byteOffset;
    const comm = btf.memberPath('task_struct', 'comm').byteOffset;
    const task = new Uint8Array(btf.sizeOf(btf.lookupCType('struct task_struct')!.id));
    new DataView(task.buffer).setInt32(tgid, 4242, true);
    task.set(Buffer.from('worker\0'), comm);
    const m = new DifMachine();
    m.mapKernel(0x10000n, task);
    const v = fire('BEGIN { trace(curthread->tgid); trace(stringof(curthread->comm)); trace(curthread->comm[1]); }', m, { tid: 1n, curthread: 0x10000n });
    expect(v).toEqual([4242n, 'worker', 111n]);
  });

  test('kernel sizes and scoped names resolve', () => {
    const btf = loadKernelBtf();
    const file = btf.sizeOf(btf.lookupCType('struct file')!.id);
    expect(fire('BEGIN { trace(sizeof(struct file)); trace(sizeof(struct vmlinux`file)); trace(sizeof(struct list_head)); }'))
      .toEqual([BigInt(file), BigInt(file), 16n]);
    // kernel typedefs are type names in casts
    expect(fire('BEGIN { trace((u8)0x1ff); trace(sizeof(u64)); }')).toEqual([255n, 8n]);
  });
});
