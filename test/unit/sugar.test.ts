import { describe, expect, it } from 'vitest';
import type * as A from '../../src/compiler/ast.js';
import { parse } from '../../src/compiler/parser.js';
import { desugarClause, hasIfStatement } from '../../src/compiler/sugar.js';

function clause(src: string): A.Clause {
  return parse(src).items.find((i): i is A.Clause => i.kind === 'Clause')!;
}

/** A compact rendering: "/predicate/ statement; statement". */
function show(c: A.Clause): string {
  const e = (x: A.Expression): string => {
    switch (x.kind) {
      case 'IntegerLiteral': return x.value.toString();
      case 'Identifier': return x.name;
      case 'ClauseLocal': return `this->${x.name}`;
      case 'Binary': return `(${e(x.left)} ${x.op} ${e(x.right)})`;
      case 'Unary': return `${x.op}${e(x.operand)}`;
      case 'Assignment': return `${e(x.target)} = ${e(x.value)}`;
      case 'Call': return `${e(x.callee)}()`;
      default: return x.kind;
    }
  };
  const body = (c.body ?? []).map((s) => (s.kind === 'ExpressionStatement' ? e(s.expression) : 'if')).join('; ');
  return `${c.predicate ? `/${e(c.predicate)}/ ` : ''}${body}`;
}

describe('if/else as predicated sub-clauses (libdtrace dt_sugar)', () => {
  it('leaves a clause without if alone', () => {
    expect(hasIfStatement(clause('BEGIN /x/ { a(); }'))).toBe(false);
  });

  it('splits at each if, computing each condition in a clause of its own', () => {
    const subs = desugarClause(clause('BEGIN { a(); if (x > 2) b(); else { c(); d(); } e(); }'));
    expect(subs.map(show)).toEqual([
      'a()',
      'this->%condition_1 = (1 && (x > 2))',
      '/this->%condition_1/ b()',
      'this->%condition_2 = (1 && !this->%condition_1)',
      '/this->%condition_2/ c(); d()',
      'e()',
    ]);
    expect(subs.every((s) => s.probes[0].name === 'BEGIN')).toBe(true);
  });

  it('turns the predicate into the outermost condition and nests conditions', () => {
    const subs = desugarClause(clause('BEGIN /p/ { if (q) { if (r) a(); } b(); }'));
    expect(subs.map(show)).toEqual([
      'this->%condition_1 = (1 && p)',
      'this->%condition_2 = (this->%condition_1 && q)',
      'this->%condition_3 = (this->%condition_2 && r)',
      '/this->%condition_3/ a()',
      '/this->%condition_1/ b()',
    ]);
  });

  it('emits no clause for an empty body', () => {
    expect(desugarClause(clause('BEGIN { if (q) { } }')).map(show)).toEqual(['this->%condition_1 = (1 && q)']);
  });
});
