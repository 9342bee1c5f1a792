import { describe, expect, it } from 'vitest';
import type * as A from '../../src/compiler/ast.js';
import { DtraceError, formatCompileError } from '../../src/compiler/errors.js';
import { parse, splitProbeDescription } from '../../src/compiler/parser.js';

/** A compact S-expression of an expression, for precedence checks. */
function sx(e: A.Expression): string {
  switch (e.kind) {
    case 'IntegerLiteral': return e.value.toString();
    case 'FloatLiteral': return e.text;
    case 'StringLiteral': return JSON.stringify(e.value);
    case 'Identifier': return e.module !== undefined ? `${e.module}\`${e.name}` : e.name;
    case 'MacroVariable': return `$${e.asString ? '$' : ''}${e.name}`;
    case 'ThreadLocal': return `self->${e.name}`;
    case 'ClauseLocal': return `this->${e.name}`;
    case 'Aggregation': return `@${e.name}${e.keys ? `[${e.keys.map(sx).join(' ')}]` : ''}`;
    case 'Index': return `(index ${sx(e.base)} ${e.keys.map(sx).join(' ')})`;
    case 'Call': return `(call ${sx(e.callee)}${e.args.map((a) => ' ' + sx(a)).join('')})`;
    case 'Member': return `(${e.arrow ? '->' : '.'} ${sx(e.object)} ${e.member})`;
    case 'Update': return e.prefix ? `(pre${e.op} ${sx(e.operand)})` : `(post${e.op} ${sx(e.operand)})`;
    case 'Unary': return `(${e.op} ${sx(e.operand)})`;
    case 'SizeofType': return `(sizeof-type ${ty(e.type.type)})`;
    case 'SizeofExpression': return `(sizeof ${sx(e.operand)})`;
    case 'Stringof': return `(stringof ${sx(e.operand)})`;
    case 'Offsetof': return `(offsetof ${ty(e.type.type)} ${e.member})`;
    case 'Xlate': return `(xlate ${ty(e.type.type)} ${sx(e.operand)})`;
    case 'Cast': return `(cast ${ty(e.type.type)} ${sx(e.operand)})`;
    case 'Binary': return `(${e.op} ${sx(e.left)} ${sx(e.right)})`;
    case 'Conditional': return `(? ${sx(e.test)} ${sx(e.consequent)} ${sx(e.alternate)})`;
    case 'Assignment': return `(${e.op} ${sx(e.target)} ${sx(e.value)})`;
    case 'Comma': return `(, ${sx(e.left)} ${sx(e.right)})`;
  }
}

/** A compact rendering of a type. */
function ty(t: A.TypeExpression): string {
  switch (t.kind) {
    case 'NamedType': {
      const s = t.specifier;
      const q = t.qualifiers.length ? t.qualifiers.join(' ') + ' ' : '';
      const base = s.kind === 'BuiltinType' ? s.name
        : s.kind === 'TypedefName' ? (s.module ? `${s.module}\`${s.name}` : s.name)
        : s.kind === 'StructType' ? `${s.union ? 'union' : 'struct'} ${s.module ? s.module + '`' : ''}${s.tag ?? '<anon>'}${s.members ? `{${s.members.map((m) => `${ty(m.type)} ${m.name ?? ''}${m.bits ? ':' + sx(m.bits) : ''}`).join('; ')}}` : ''}`
        : `enum ${s.tag ?? '<anon>'}${s.enumerators ? `{${s.enumerators.map((x) => x.name + (x.value ? '=' + sx(x.value) : '')).join(', ')}}` : ''}`;
      return q + base;
    }
    case 'PointerType': return `ptr(${ty(t.to)})`;
    case 'ArrayType': return `array(${ty(t.of)}${t.size ? ', ' + sx(t.size) : ''}${t.keys ? ', [' + t.keys.map((k) => ty(k.type)).join(', ') + ']' : ''})`;
    case 'FunctionType': return `func(${ty(t.returns)}; ${t.params.map((p) => ty(p.type) + (p.name ? ' ' + p.name : '')).join(', ')}${t.varargs ? ', ...' : ''})`;
  }
}

function clauses(source: string, options = {}): A.Clause[] {
  return parse(source, options).items.filter((i): i is A.Clause => i.kind === 'Clause');
}

/** The expression of the only statement of `BEGIN { <expr>; }`. */
function expr(source: string): string {
  const body = clauses(`BEGIN { ${source}; }`)[0].body!;
  expect(body).toHaveLength(1);
  return sx((body[0] as A.ExpressionStatement).expression);
}

function parseError(source: string, options = {}): DtraceError {
  try {
    parse(source, options);
  } catch (e) {
    expect(e).toBeInstanceOf(DtraceError);
    return e as DtraceError;
  }
  throw new Error(`expected ${JSON.stringify(source)} to fail`);
}

describe('parser: probe descriptions', () => {
  const cases: [string, Partial<A.ProbeDescription>][] = [
    ['BEGIN', { instance: 'host', provider: '', module: '', function: '', name: 'BEGIN' }],
    ['profile-997', { name: 'profile-997' }],
    ['tick-1s', { name: 'tick-1s' }],
    ['read:entry', { function: 'read', name: 'entry' }],
    ['vmlinux:read:entry', { module: 'vmlinux', function: 'read', name: 'entry' }],
    ['syscall::read:entry', { provider: 'syscall', module: '', function: 'read', name: 'entry' }],
    ['syscall::*read*:entry', { provider: 'syscall', function: '*read*', name: 'entry' }],
    ['syscall::[rw]*:entry', { function: '[rw]*' }],
    ['syscall::rea?:entry', { function: 'rea?' }],
    ['pid$target:a.out:main:entry', { provider: 'pid$target', module: 'a.out', function: 'main', name: 'entry' }],
    ['pid1234:libc.so.6:malloc:return', { provider: 'pid1234', module: 'libc.so.6', function: 'malloc', name: 'return' }],
    ['python$target:::function-entry', { provider: 'python$target', module: '', function: '', name: 'function-entry' }],
    ['fbt:vmlinux:vfs_read:entry', { provider: 'fbt', module: 'vmlinux', function: 'vfs_read', name: 'entry' }],
    ['sdt:sched::sched_switch', { provider: 'sdt', module: 'sched', function: '', name: 'sched_switch' }],
    ['db1:syscall::read:entry', { instance: 'db1', provider: 'syscall', function: 'read', name: 'entry' }],
    ['*:syscall::read:entry', { instance: '*', provider: 'syscall' }],
  ];
  it.each(cases)('splits %s', (text, want) => {
    const [c] = clauses(`${text} { }`);
    expect(c.probes).toHaveLength(1);
    expect(c.probes[0]).toMatchObject({ kind: 'ProbeDescription', text, ...want });
    expect(c.body).toEqual([]);
  });

  it('accepts several descriptions, a predicate and an empty body', () => {
    const [c] = clauses('syscall::read:entry,\nsyscall::write:entry\n/pid == $target/\n{}');
    expect(c.probes.map((p) => p.function)).toEqual(['read', 'write']);
    expect(c.probes[1].line).toBe(2);
    expect(sx(c.predicate!)).toBe('(== pid $target)');
    expect(c.body).toEqual([]);
  });

  it('rejects more than five elements', () => {
    expect(() => splitProbeDescription('a:b:c:d:e:f')).toThrow('invalid probe description "a:b:c:d:e:f": Overspecified probe description');
  });

  it('accepts bare descriptions only from -n style text', () => {
    const [c] = clauses('BEGIN', { kind: 'probe-description' });
    expect(c.body).toBeNull();
    expect(clauses('BEGIN, END', { probeSpec: true })[0].probes).toHaveLength(2);
    expect(parseError('BEGIN').message).toBe('expected predicate and/or actions following probe description');
    expect(parseError('BEGIN /1/').message).toBe('expected actions { } following probe description and predicate');
  });

  it('accepts a numeric probe id', () => {
    expect(clauses('1234 {}')[0].probes[0]).toMatchObject({ id: 1234, name: '' });
  });
});

describe('parser: statements', () => {
  it('separates statements by ";" with an optional last one and empty statements', () => {
    const [c] = clauses('BEGIN { ;; a = 1; ; b = 2 }');
    expect(c.body!.map((s) => sx((s as A.ExpressionStatement).expression))).toEqual(['(= a 1)', '(= b 2)']);
  });

  it('parses if / else with blocks and single statements', () => {
    const [c] = clauses('BEGIN { if (x > 1) { trace(1); trace(2) } else if (y) trace(3); else { } }');
    const s = c.body![0] as A.IfStatement;
    expect(s.kind).toBe('IfStatement');
    expect(sx(s.test)).toBe('(> x 1)');
    expect(s.consequent).toHaveLength(2);
    const inner = s.alternate![0] as A.IfStatement;
    expect(inner.kind).toBe('IfStatement');
    expect(inner.consequent).toHaveLength(1);
    expect(inner.alternate).toEqual([]);
  });

  it('records lines and columns of every node', () => {
    const [c] = clauses('\nBEGIN\n{\n  x =\n    y + 1;\n}');
    expect([c.line, c.column]).toEqual([2, 1]);
    const a = (c.body![0] as A.ExpressionStatement).expression as A.Assignment;
    expect([a.line, a.column]).toEqual([4, 3]);
    expect([a.value.line, a.value.column]).toEqual([5, 5]);
  });
});

describe('parser: expressions and precedence', () => {
  it.each([
    ['a + b * c', '(+ a (* b c))'],
    ['a * b + c', '(+ (* a b) c)'],
    ['a - b - c', '(- (- a b) c)'],
    ['a ? b : c ? d : e', '(? a b (? c d e))'],
    ['x = y = 3', '(= x (= y 3))'],
    ['!a && b || c', '(|| (&& (! a) b) c)'],
    ['a || b ^^ c && d', '(|| a (^^ b (&& c d)))'],
    ['a | b ^ c & d', '(| a (^ b (& c d)))'],
    ['a == b < c', '(== a (< b c))'],
    ['a < b << c', '(< a (<< b c))'],
    ['a << b + c', '(<< a (+ b c))'],
    ['a % b / c', '(/ (% a b) c)'],
    ['x += y -= 2', '(+= x (-= y 2))'],
    ['x <<= 1', '(<<= x 1)'],
    ['x >>= 1', '(>>= x 1)'],
    ['x %= 1', '(%= x 1)'],
    ['x &= x | 1', '(&= x (| x 1))'],
    ['x ^= 1', '(^= x 1)'],
    ['x |= 1', '(|= x 1)'],
    ['x *= 2', '(*= x 2)'],
    ['x /= 2', '(/= x 2)'],
    ['-a * ~b', '(* (- a) (~ b))'],
    ['*p + &q', '(+ (* p) (& q))'],
    ['+a', '(+ a)'],
    ['++x + y--', '(+ (pre++ x) (post-- y))'],
    ['--x', '(pre-- x)'],
    ['x++', '(post++ x)'],
    ['(a + b) * c', '(* (+ a b) c)'],
    ['a, b', '(, a b)'],
    ['f(a, (b, c))', '(call f a (, b c))'],
    ['f()', '(call f)'],
    ['a[1][2]', '(index (index a 1) 2)'],
    ['a[1, "x"]', '(index a 1 "x")'],
    ['s.a.b', '(. (. s a) b)'],
    ['curthread->pid', '(-> curthread pid)'],
    ['self->x', 'self->x'],
    ['self->x[1]', '(index self->x 1)'],
    ['this->y->z', '(-> this->y z)'],
    ['sizeof x', '(sizeof x)'],
    ['sizeof (x)', '(sizeof x)'],
    ['sizeof (int)', '(sizeof-type int)'],
    ['sizeof (struct foo *)', '(sizeof-type ptr(struct foo))'],
    ['stringof(x)', '(stringof x)'],
    ['(int)x', '(cast int x)'],
    ['(unsigned long long)x + 1', '(+ (cast unsigned long long x) 1)'],
    ['(uint64_t)arg0', '(cast uint64_t arg0)'],
    ['(char *)arg0', '(cast ptr(char) arg0)'],
    ['(struct task_struct *)curthread', '(cast ptr(struct task_struct) curthread)'],
    ['(struct vmlinux`task_struct *)curthread', '(cast ptr(struct vmlinux`task_struct) curthread)'],
    ['(const char *)x', '(cast ptr(const char) x)'],
    ['offsetof(struct foo, bar)', '(offsetof struct foo bar)'],
    ['xlate<psinfo_t *>(curthread)', '(xlate ptr(psinfo_t) curthread)'],
    ['`jiffies + vmlinux`jiffies', '(+ `jiffies vmlinux`jiffies)'],
    ['$1 + $$2 + $target + $pid', '(+ (+ (+ $1 $$2) $target) $pid)'],
    ['x = "a\\tb"', '(= x "a\\tb")'],
    ["x = 'a'", '(= x 97)'],
    ['x = 1.5', '(= x 1.5)'],
  ])('%s', (source, want) => {
    expect(expr(source)).toBe(want);
  });

  it('parses integer literals in every base with suffixes', () => {
    const lits = ['10', '010', '0x10', '10u', '10l', '10ul', '10ULL', '0xffffffffffffffff'].map((t) => {
      const e = (clauses(`BEGIN { x = ${t}; }`)[0].body![0] as A.ExpressionStatement).expression as A.Assignment;
      return e.value as A.IntegerLiteral;
    });
    expect(lits.map((l) => l.value)).toEqual([10n, 8n, 16n, 10n, 10n, 10n, 10n, (1n << 64n) - 1n]);
    expect(lits.map((l) => l.suffix)).toEqual(['', '', '', 'u', 'l', 'ul', 'ULL', '']);
    expect(lits.map((l) => l.decimal)).toEqual([true, false, false, true, true, true, true, false]);
  });

  it('rejects assignment to a non-lvalue form as DTrace does', () => {
    expect(parseError('BEGIN { a + b = c; }').message).toBe('syntax error near "="');
  });
});

describe('parser: aggregations', () => {
  it.each([
    ['@c = count()', '(= @c (call count))'],
    ['@ = count()', '(= @_ (call count))'],
    ['@[execname] = count()', '(= @_[execname] (call count))'],
    ['@a[probefunc, pid] = sum(arg0)', '(= @a[probefunc pid] (call sum arg0))'],
    ['@q["x"] = quantize(arg2)', '(= @q["x"] (call quantize arg2))'],
    ['@l = lquantize(x, 0, 100, 10)', '(= @l (call lquantize x 0 100 10))'],
    ['printa("%d", @a)', '(call printa "%d" @a)'],
    ['trunc(@a, 10)', '(call trunc @a 10)'],
  ])('%s', (source, want) => {
    expect(expr(source)).toBe(want);
  });
});

describe('parser: declarations', () => {
  function decls(source: string): string[] {
    return parse(source).items.map((i) => {
      switch (i.kind) {
        case 'Declaration':
          return `${i.storage ? i.storage + ' ' : ''}${i.declarators.length ? i.declarators.map((d) => `${d.name}: ${ty(d.type)}`).join(', ') : ty(i.base)}`;
        case 'InlineDefinition': return `inline ${i.name}: ${ty(i.type)} = ${sx(i.value)}`;
        default: return i.kind;
      }
    });
  }

  it.each([
    ['int x;', 'x: int'],
    ['int x, *y, z[4];', 'x: int, y: ptr(int), z: array(int, 4)'],
    ['unsigned long long c;', 'c: unsigned long long'],
    ['signed char c; unsigned u; short s; long int l; long double d; float f; double g;', ''],
    ['string s;', 's: string'],
    ['self int x;', 'self x: int'],
    ['this string y;', 'this y: string'],
    ['static const int k;', 'static k: const int'],
    ['extern int `vmlinux_var;', 'extern `vmlinux_var: int'],
    ['int a[string, int];', 'a: array(int, [string, int])'],
    ['char *argv[];', 'argv: array(ptr(char))'],
    ['int (*fp)(int, char *, ...);', 'fp: ptr(func(int; int, ptr(char), ...))'],
    ['int *(*ap)[3];', 'ap: ptr(array(ptr(int), 3))'],
    ['void f(void);', 'f: func(void; void)'],
    ['char *const volatile p;', 'p: ptr(char)'],
    ['struct foo { int a; char *b; unsigned int c : 3; int : 2; };', 'struct foo{int a; ptr(char) b; unsigned int c:3; int :2}'],
    ['struct foo x;', 'x: struct foo'],
    ['union u { int i; long l; } v;', 'v: union u{int i; long l}'],
    ['enum color { RED, GREEN = 5, BLUE };', 'enum color{RED, GREEN=5, BLUE}'],
    ['enum { A = 1 << 2 } e;', 'e: enum <anon>{A=(<< 1 2)}'],
    ['typedef unsigned long foo_t;', 'typedef foo_t: unsigned long'],
    ['inline int maxlen = 3 * 4;', 'inline maxlen: int = (* 3 4)'],
    ['inline string state[int x] = x == 0 ? "a" : "b";', 'inline state: array(string, [int]) = (? (== x 0) "a" "b")'],
    ['uint64_t total;', 'total: uint64_t'],
    ['userland int *up;', 'up: ptr(int)'],
  ])('%s', (source, want) => {
    const got = decls(source);
    if (want !== '') expect(got.join(' | ')).toBe(want);
    else expect(got.every((d) => !d.startsWith('Clause'))).toBe(true);
  });

  it('normalises built-in type words', () => {
    const names = (parse('signed char a; unsigned b; short int c; long d; long long int e; unsigned long long f; long double g; signed h;').items as A.Declaration[])
      .map((d) => (d.base.specifier as A.BuiltinTypeSpecifier).name);
    expect(names).toEqual(['signed char', 'unsigned int', 'short', 'long', 'long long', 'unsigned long long', 'long double', 'int']);
  });

  it('rejects invalid type combinations', () => {
    const e = parseError('short long x;');
    expect([e.tag, e.message]).toEqual(['D_UNKNOWN', 'failed to resolve type short long : Unknown type name']);
  });

  it('uses script typedefs as types, at the outer scope and in casts', () => {
    const items = parse('typedef struct foo { int a; } foo_t;\nfoo_t x;\nfoo_t *p;\nBEGIN { y = (foo_t *)0; }').items;
    expect(items.map((i) => i.kind)).toEqual(['Declaration', 'Declaration', 'Declaration', 'Clause']);
    expect(ty((items[2] as A.Declaration).declarators[0].type)).toBe('ptr(foo_t)');
    const body = (items[3] as A.Clause).body![0] as A.ExpressionStatement;
    expect(sx(body.expression)).toBe('(= y (cast ptr(foo_t) 0))');
  });

  it('uses caller-supplied type names (e.g. from BTF)', () => {
    const [c] = clauses('BEGIN { x = (u64)arg0; }', { isTypeName: (n: string) => n === 'u64' });
    expect(sx((c.body![0] as A.ExpressionStatement).expression)).toBe('(= x (cast u64 arg0))');
    // Without it, `(u64)` is a parenthesised name and what follows is a syntax error.
    expect(parseError('BEGIN { x = (u64)arg0; }').message).toBe('syntax error near "arg0"');
  });

  it('reads a parenthesised variable as an expression even when its name is a typedef', () => {
    const isTypeName = (n: string) => n === 'code' || n === 'u64';
    const [c] = clauses('BEGIN { code = 3; x = (code * 2); y = (code); z = (u64 * 2); w = (u64 *)0; }', { isTypeName });
    expect(c.body!.map((s) => sx((s as A.ExpressionStatement).expression))).toEqual([
      '(= code 3)', '(= x (* code 2))', '(= y code)', '(= z (* u64 2))', '(= w (cast ptr(u64) 0))',
    ]);
    // A declared variable is never a type name either.
    const [d] = clauses('int code;\nBEGIN { x = (code); }', { isTypeName });
    expect(sx((d.body![0] as A.ExpressionStatement).expression)).toBe('(= x code)');
    expect(expr('x = sizeof (code * 2)')).toBe('(= x (sizeof (* code 2)))');
  });

  it('takes vmlinux`struct as one identifier, as DTrace lexes it (then a syntax error)', () => {
    expect(() => expr('x = sizeof (vmlinux`struct file)')).toThrow(/syntax error near "file\)/);
  });

  it('drops the leading backquote of a module scope', () => {
    expect(expr('x = `vmlinux`jiffies')).toBe('(= x vmlinux`jiffies)');
    expect(expr('x = vmlinux`jiffies')).toBe('(= x vmlinux`jiffies)');
    const [c] = clauses('BEGIN { x = `jiffies; y = sizeof (struct `vmlinux`file); z = (struct vmlinux`file *)0; }');
    const [x, y, z] = c.body!.map((s) => (s as A.ExpressionStatement).expression as A.Assignment);
    expect(x.value).toMatchObject({ kind: 'Identifier', name: 'jiffies', module: '' });
    expect((y.value as A.SizeofType).type.type).toMatchObject({ specifier: { kind: 'StructType', tag: 'file', module: 'vmlinux' } });
    expect(sx(z.value)).toBe('(cast ptr(struct vmlinux`file) 0)');
  });

  it('parses translators', () => {
    const [t] = parse(`translator psinfo_t < struct task_struct *T > {
      pr_pid = T->pid;
      pr_fname = stringof(T->comm);
    };`).items as A.TranslatorDefinition[];
    expect(t.kind).toBe('TranslatorDefinition');
    expect(ty(t.output.type)).toBe('psinfo_t');
    expect(ty(t.input.type)).toBe('ptr(struct task_struct)');
    expect(t.param).toBe('T');
    expect(t.members.map((m) => `${m.name}=${sx(m.value)}`)).toEqual(['pr_pid=(-> T pid)', 'pr_fname=(stringof (-> T comm))']);
  });

  it('parses provider definitions', () => {
    const [p] = parse('provider myapp {\n probe query__start(char *, int);\n probe done();\n probe x(foo_t *p) : (string);\n};').items as A.ProviderDefinition[];
    expect(p).toMatchObject({ kind: 'ProviderDefinition', name: 'myapp' });
    expect(p.probes.map((q) => q.name)).toEqual(['query__start', 'done', 'x']);
    expect(p.probes[0].params.map((q) => ty(q.type))).toEqual(['ptr(char)', 'int']);
    expect(p.probes[1].params).toEqual([]);
    expect(p.probes[2].params[0].name).toBe('p');
    expect(p.probes[2].translated!.map((q) => ty(q.type))).toEqual(['string']);
  });

  it('mixes declarations, clauses and pragmas in source order', () => {
    const items = parse('#!/usr/sbin/dtrace -s\n#pragma D option quiet\nint x;\nBEGIN { x = 1; }\nself int y;\nEND {}\n').items;
    expect(items.map((i) => i.kind)).toEqual(['Pragma', 'Declaration', 'Clause', 'Declaration', 'Clause']);
  });
});

describe('parser: pragmas and control lines', () => {
  it('reads #pragma D option forms', () => {
    const ps = parse('#pragma D option quiet\n#pragma D option bufsize=16m switchrate=10hz\n#pragma D binding "1.0" foo\n#pragma D depends_on provider syscall\n#pragma D attributes Evolving/Evolving/Common provider myapp\n#pragma ident "x"\n').items as A.Pragma[];
    expect(ps.map((p) => p.directive)).toEqual(['option', 'option', 'binding', 'depends_on', 'attributes', 'other-pragma']);
    expect(ps[0].options).toEqual([{ name: 'quiet' }]);
    expect(ps[1].options).toEqual([{ name: 'bufsize', value: '16m' }, { name: 'switchrate', value: '10hz' }]);
    expect(ps[2].args).toEqual(['1.0', 'foo']);
    expect(ps[3].args).toEqual(['provider', 'syscall']);
    expect(ps[0].line).toBe(1);
  });

  it('applies #line and cpp line markers to later positions', () => {
    const e = parseError('# 10 "probe.d"\nBEGIN\n{\n  x = ;\n}\n');
    expect([e.file, e.line, e.message]).toEqual(['probe.d', 12, 'syntax error near ";"']);
    const [c] = clauses('#line 20\nBEGIN {}\n');
    expect(c.line).toBe(20);
    expect(c.file).toBeUndefined();
  });

  it('ignores a #! first line', () => {
    expect(parse('#!/usr/sbin/dtrace -qs\nBEGIN {}\n').items.map((i) => i.kind)).toEqual(['Clause']);
  });

  it('reports bad control lines as DTrace does', () => {
    const e = parseError('#foo\nBEGIN {}\n');
    expect([e.tag, e.line, e.message]).toEqual(['D_PRAGCTL_INVAL', 1, 'invalid control directive: #foo']);
    const eof = parseError('BEGIN {}\n#pragma D option quiet');
    expect([eof.tag, eof.line, eof.message]).toEqual(['D_SYNTAX', 2, 'end-of-file encountered before end of control line']);
  });
});

describe('parser: errors', () => {
  it.each([
    ['BEGIN { trace(', 'D_SYNTAX', 1, 'syntax error near end of input'],
    ['BEGIN { trace( }', 'D_SYNTAX', 1, 'syntax error near "}"'],
    ['BEGIN\n{\n  x = ;\n}', 'D_SYNTAX', 3, 'syntax error near ";"'],
    ['BEGIN { x = 1 y = 2; }', 'D_SYNTAX', 1, 'syntax error near "y = 2; }"'], // DTrace's lexer peeked past y
    ['BEGIN { for (;;) {} }', 'D_SYNTAX', 1, 'syntax error near "for"'],
    ['BEGIN { x = "abc\n"; }', 'D_STR_NL', 1, 'newline encountered in string literal'],
    ["BEGIN { x = ''; }", 'D_CHR_NULL', 1, 'empty character constant'],
    ["BEGIN { x = 'a\n'; }", 'D_CHR_NL', 1, 'newline encountered in character constant'],
    ['BEGIN\n{ x = 99999999999999999999; }', 'D_INT_OFLOW', 2, 'constant 99999999999999999999 results in integer overflow'],
    ['BEGIN { x = 08; }', 'D_INT_DIGIT', 1, 'constant 08 contains invalid digit 8'],
    ['BEGIN { x = #; }', 'D_SYNTAX', 1, 'syntax error near "#"'],
    ['BEGIN { } }', 'D_SYNTAX', 1, 'syntax error near "}"'],
    ['BEGIN { /* x', 'D_SYNTAX', 1, 'end-of-file encountered before matching */'],
    ['int x', 'D_SYNTAX', 1, 'syntax error near end of input'],
    ['BEGIN { trace(1); }\n', 'none', 0, ''],
    ['a:b:c:d:e:f { }', 'D_PDESC_INVAL', 1, 'invalid probe description "a:b:c:d:e:f": Overspecified probe description'],
    ['counter x;', 'D_SYNTAX', 1, 'syntax error near "counter"'],
    ['BEGIN { x = 1; }\n;', 'D_SYNTAX', 2, 'syntax error near ";"'],
  ])('%j', (source, tag, line, message) => {
    if (tag === 'none') {
      expect(() => parse(source)).not.toThrow();
      return;
    }
    const e = parseError(source);
    expect({ tag: e.tag, line: e.line, message: e.message }).toEqual({ tag, line, message });
  });

  it('counts the end-of-input line as DTrace does', () => {
    expect(parseError('BEGIN {\n trace(1)\n').line).toBe(3);
  });

  it('reports the earliest of a lexical and a syntax error', () => {
    expect(parseError('BEGIN { x = = 1; y = "abc\n"; }').message).toBe('syntax error near "="');
  });

  it('never leaks Chevrotain messages', () => {
    for (const bad of ['{', '}', 'BEGIN {', 'BEGIN / {', 'BEGIN { x = (int; }', 'struct;', 'int (;', 'BEGIN { @a[ = 1; }', 'translator x < y >']) {
      const e = parseError(bad);
      expect(e.message).toMatch(/^(syntax error near (end of input|".*")|expected .*)$/);
      expect(e.tag).toBe('D_SYNTAX');
    }
  });
});

describe('errors: dtrace(1) rendering', () => {
  const e = new DtraceError('D_SYNTAX', 'syntax error near "}"', { line: 3 });

  it('renders script errors with the line', () => {
    expect(formatCompileError(e, { mode: 'script', source: 'x.d' })).toBe('dtrace: failed to compile script x.d: line 3: syntax error near "}"');
    expect(formatCompileError(e, { mode: 'script', source: 'x.d', errtags: true })).toBe('dtrace: failed to compile script x.d: [D_SYNTAX] line 3: syntax error near "}"');
  });

  it('renders probe-description errors without a line', () => {
    expect(formatCompileError(e, { mode: 'probe', source: 'BEGIN { }}' })).toBe('dtrace: invalid probe specifier BEGIN { }}: syntax error near "}"');
    expect(formatCompileError(e, { mode: 'probe', source: 'X', errtags: true })).toBe('dtrace: invalid probe specifier X: [D_SYNTAX] syntax error near "}"');
  });

  it('renders a #line file tag and a region', () => {
    const f = new DtraceError('D_SYNTAX', 'm', { line: 7, file: 'a.d' });
    expect(formatCompileError(f, { mode: 'script', source: 'x.d' })).toBe('dtrace: failed to compile script x.d: "a.d", line 7: m');
    const r = new DtraceError('D_PROTO_LEN', 'quantize( ) prototype mismatch', { region: 'action list' });
    expect(formatCompileError(r, { mode: 'probe', source: 'X' })).toBe('dtrace: invalid probe specifier X: in action list: quantize( ) prototype mismatch');
  });

  it('end to end: BEGIN { trace( as dtrace -s and -n print it', () => {
    const err = parseError('BEGIN { trace(');
    expect(formatCompileError(err, { mode: 'script', source: 't.d' })).toBe('dtrace: failed to compile script t.d: line 1: syntax error near end of input');
    expect(formatCompileError(err, { mode: 'probe', source: 'BEGIN { trace(' })).toBe('dtrace: invalid probe specifier BEGIN { trace(: syntax error near end of input');
  });
});

describe('parser: speed', () => {
  it('parses a 2,000-line script', () => {
    const clause = [
      'syscall::read:entry, syscall::write:entry',
      '/pid == $target && arg2 > 0/',
      '{',
      '  self->ts = timestamp;',
      '  @bytes[execname, probefunc] = sum(arg2);',
      '  this->x = (uint64_t)arg0 + 1 * 2;',
      '  if (self->ts) { printf("%s %d\\n", execname, pid); } else { trace(1); }',
      '}',
      '',
      'int counter_a;',
    ];
    const lines: string[] = [];
    while (lines.length < 2000) lines.push(...clause);
    const source = lines.join('\n');
    parse(source); // warm up
    const start = performance.now();
    const prog = parse(source);
    const ms = performance.now() - start;
    expect(prog.items.length).toBe(400);
    void ms; // speed belongs to benchmarks, not tests
  });
});

describe('parser: casts to unknown types', () => {
  it('names the unknown type of a failed cast in a hint, kept out of DTrace\'s message', () => {
    const ptr = parseError('BEGIN { x = (uf_entry_t *)arg0; }');
    expect(ptr.message).toBe('syntax error near ")"');
    expect(ptr.hint).toBe('uf_entry_t is not a known type name');
    const plain = parseError('BEGIN {\n x = (kthread_t)arg0; }');
    expect(formatCompileError(plain, { mode: 'script', source: 'x.d' })).toBe(
      'dtrace: failed to compile script x.d: line 2: syntax error near "arg0"',
    );
    expect(plain.hint).toBe('kthread_t is not a known type name');
  });

  it('gives no hint where no cast was meant', () => {
    expect(parseError('BEGIN { x = f(a) b; }').hint).toBeUndefined();
    expect(parseError('BEGIN { x = (a + b) c; }').hint).toBeUndefined();
    expect(parseError('BEGIN { x = ; }').hint).toBeUndefined();
  });
});
