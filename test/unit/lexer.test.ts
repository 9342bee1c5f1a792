import { describe, expect, it } from 'vitest';
import {
  charValue, controlWords, integerValue, isLexError, stringValue, tokenize, type LexErrorPayload,
} from '../../src/compiler/lexer.js';

/** "Type:image" for each parser token. */
function toks(source: string, options = {}): string[] {
  return tokenize(source, options).tokens.map((t) => `${t.tokenType.name}:${t.image}`);
}

describe('lexer: outer scope (probe descriptions and declarations)', () => {
  it.each([
    'syscall::read:entry', 'syscall::*read*:entry', 'BEGIN', 'profile-997', 'tick-1s',
    'pid$target:a.out:main:entry', 'pid1234:libc.so.6:malloc:return', 'python$target:::function-entry',
    'fbt:vmlinux:vfs_read:entry', 'sdt:sched::sched_switch', 'syscall::[rw]*:entry', 'syscall::rea?:entry',
    'h1:syscall::read:entry', '$1:::entry',
  ])('lexes %s as one probe description', (spec) => {
    expect(toks(`${spec} { }`)).toEqual([`ProbeSpec:${spec}`, 'LBrace:{', 'RBrace:}']);
  });

  it('separates descriptions by commas and opens a predicate', () => {
    expect(toks('a:b:c:d, e:f:g:h /x/ {}')).toEqual([
      'ProbeSpec:a:b:c:d', 'Comma:,', 'ProbeSpec:e:f:g:h', 'PredStart:/', 'Identifier:x', 'PredEnd:/',
      'LBrace:{', 'RBrace:}',
    ]);
  });

  it('lexes keywords and type names that start declarations', () => {
    expect(toks('int x;')).toEqual(['OuterKw_int:int', 'Identifier:x', 'DeclEnd:;']);
    expect(toks('int*x;')).toEqual(['OuterKw_int:int', 'Star:*', 'Identifier:x', 'DeclEnd:;']);
    expect(toks('self int x;')[0]).toBe('OuterKw_self:self');
    expect(toks('uint64_t x;', { isTypeName: (n: string) => n === 'uint64_t' })[0]).toBe('OuterTypeName:uint64_t');
    // With ':' a word is always a description; in probe mode a type name is one too.
    expect(toks('int:::entry {}')[0]).toBe('ProbeSpec:int:::entry');
    expect(toks('uint64_t', { probeMode: true, isTypeName: () => true })[0]).toBe('ProbeSpec:uint64_t');
  });

  it('returns to the outer scope after a declaration and after a clause', () => {
    expect(toks('struct s { int a; }; BEGIN { x = 1; } END')).toEqual([
      'OuterKw_struct:struct', 'Identifier:s', 'LBrace:{', 'Kw_int:int', 'Identifier:a', 'Semi:;', 'RBrace:}',
      'DeclEnd:;', 'ProbeSpec:BEGIN', 'LBrace:{', 'Identifier:x', 'Assign:=', 'IntegerLiteral:1', 'Semi:;',
      'RBrace:}', 'ProbeSpec:END',
    ]);
  });
});

describe('lexer: predicates', () => {
  it('tells a closing "/" from division by what follows', () => {
    expect(toks('BEGIN /a / b/ {}')).toEqual([
      'ProbeSpec:BEGIN', 'PredStart:/', 'Identifier:a', 'Slash:/', 'Identifier:b', 'PredEnd:/', 'LBrace:{', 'RBrace:}',
    ]);
    expect(toks('BEGIN /x/\n{}')[3]).toBe('PredEnd:/');
  });
});

describe('lexer: expression tokens', () => {
  const body = (s: string) => toks(`BEGIN { ${s} }`).slice(2, -1);

  it('lexes operators longest first', () => {
    expect(body('a <<= b >>= c -> d ++ -- ^^ ... != ==')).toEqual([
      'Identifier:a', 'LShiftAssign:<<=', 'Identifier:b', 'RShiftAssign:>>=', 'Identifier:c', 'Arrow:->',
      'Identifier:d', 'PlusPlus:++', 'MinusMinus:--', 'XorXor:^^', 'Ellipsis:...', 'NotEq:!=', 'EqEq:==',
    ]);
  });

  it('lexes keywords, identifiers and backquoted symbols', () => {
    expect(body('sizeof stringof self this intx `jiffies vmlinux`jiffies')).toEqual([
      'Kw_sizeof:sizeof', 'Kw_stringof:stringof', 'Kw_self:self', 'Kw_this:this', 'Identifier:intx',
      'Identifier:`jiffies', 'Identifier:vmlinux`jiffies',
    ]);
  });

  it('lexes aggregations and macro variables', () => {
    expect(body('@ @foo @_x $1 $$1 $target $pid $$target')).toEqual([
      'Aggregation:@', 'Aggregation:@foo', 'Aggregation:@_x', 'MacroVariable:$1', 'MacroVariable:$$1',
      'MacroVariable:$target', 'MacroVariable:$pid', 'MacroVariable:$$target',
    ]);
  });

  it('lexes numbers, floats, strings and characters', () => {
    expect(body('10 0x1F 017 10u 10UL 10ull 1.5 1e3 .5 "a\\"b" \'c\'')).toEqual([
      'IntegerLiteral:10', 'IntegerLiteral:0x1F', 'IntegerLiteral:017', 'IntegerLiteral:10u',
      'IntegerLiteral:10UL', 'IntegerLiteral:10ull', 'FloatLiteral:1.5', 'FloatLiteral:1e3', 'FloatLiteral:.5',
      'StringLiteral:"a\\"b"', "CharLiteral:'c'",
    ]);
  });

  it('skips comments, // comments and backslash-newline', () => {
    expect(body('a /* x\n y */ b // c\n d \\\n e')).toEqual(['Identifier:a', 'Identifier:b', 'Identifier:d', 'Identifier:e']);
  });

  it('tracks lines and columns', () => {
    const t = tokenize('BEGIN\n{\n  x = 1;\n}').tokens;
    const x = t.find((k) => k.image === 'x')!;
    expect([x.startLine, x.startColumn]).toEqual([3, 3]);
  });
});

describe('lexer: control lines', () => {
  it('puts #pragma and #line in the control group, only at line start', () => {
    const r = tokenize('#pragma D option quiet\n  #line 5 "x.d"\nBEGIN {}\n');
    expect(r.controls.map((t) => t.image)).toEqual(['#pragma D option quiet', '#line 5 "x.d"']);
    expect(r.tokens.map((t) => t.image)).toEqual(['BEGIN', '{', '}']);
  });

  it('splits control lines into words and strings', () => {
    expect(controlWords('pragma D option bufsize=16m')).toEqual(['pragma', 'D', 'option', 'bufsize=16m']);
    expect(controlWords('line 3 "a b.d"')).toEqual(['line', '3', 'a b.d']);
  });
});

describe('lexer: values and errors', () => {
  const err = (v: unknown) => v as LexErrorPayload;

  it('reads integers as strtoull(…, 0) does', () => {
    expect(integerValue('0x10')).toEqual({ value: 16n, suffix: '', decimal: false });
    expect(integerValue('010')).toEqual({ value: 8n, suffix: '', decimal: false });
    expect(integerValue('10ul')).toEqual({ value: 10n, suffix: 'ul', decimal: true });
    expect(integerValue('0xffffffffffffffff')).toMatchObject({ value: (1n << 64n) - 1n });
    expect(integerValue('18446744073709551615u')).toMatchObject({ value: (1n << 64n) - 1n });
    // a decimal constant without u is signed, as DTrace has it (the reference's words)
    expect(err(integerValue('9223372036854775808'))).toEqual({
      tag: 'D_INT_OFLOW', message: 'integer constant 0x8000000000000000 cannot be represented in any built-in integral type',
    });
    expect(err(integerValue('18446744073709551616'))).toEqual({
      tag: 'D_INT_OFLOW', message: 'constant 18446744073709551616 results in integer overflow',
    });
    expect(err(integerValue('089'))).toEqual({ tag: 'D_INT_DIGIT', message: 'constant 089 contains invalid digit 8' });
  });

  it('decodes string and character escapes', () => {
    const s = stringValue('"a\\n\\t\\x41\\101\\\\\\""');
    expect(s.value).toBe('a\n\tAA\\"');
    expect(Array.from(s.bytes)).toEqual([97, 10, 9, 65, 65, 92, 34]);
    expect(Array.from(stringValue('"é\\xff"').bytes)).toEqual([0xc3, 0xa9, 0xff]);
    expect(charValue("'a'")).toBe(97n);
    expect(charValue("'\\n'")).toBe(10n);
    expect(charValue("'ab'")).toBe(0x6162n);
    expect(err(charValue("''"))).toEqual({ tag: 'D_CHR_NULL', message: 'empty character constant' });
    expect(err(charValue("'abcdefghi'"))).toEqual({ tag: 'D_CHR_OFLOW', message: 'character constant is too long' });
  });

  it('turns bad input into LexError tokens with DTrace messages', () => {
    const bad = (s: string) => {
      const t = tokenize(s).tokens.find(isLexError)!;
      return t.payload as LexErrorPayload;
    };
    expect(bad('BEGIN { x = "abc\n"; }')).toEqual({ tag: 'D_STR_NL', message: 'newline encountered in string literal' });
    expect(bad("BEGIN { x = 'a\n'; }")).toEqual({ tag: 'D_CHR_NL', message: 'newline encountered in character constant' });
    expect(bad('BEGIN { x = #; }')).toEqual({ tag: 'D_SYNTAX', message: 'syntax error near "#"' });
    expect(bad('BEGIN { /* x')).toEqual({ tag: 'D_SYNTAX', message: 'end-of-file encountered before matching */' });
    expect(bad('BEGIN { /* x /* y */ }')).toEqual({ tag: 'D_SYNTAX', message: '/* encountered inside a comment' });
    expect(bad('BEGIN {} }')).toEqual({ tag: 'D_SYNTAX', message: 'syntax error near "}"' });
  });
});
