// D's `if`/`else` statements, turned into plain clauses as libdtrace does (dt_sugar.c).
//
// A clause holding an `if` is split at each `if` into basic blocks. Every condition is first stored
// in a clause-local variable `this->%condition_N` (the '%' keeps it apart from user names) by a
// clause of its own; each block then becomes a clause predicated on the condition it runs under.
// Clause-locals are shared by all the clauses of one probe firing, so the blocks see the
// conditions the earlier clauses computed, and in source order.
//
// Not done (unlike DTrace): the `self->%error` guard and the dtrace:::ERROR clause that sets it, by
// which DTrace skips the remaining blocks of a clause after a fault in one of them.

import type * as A from './ast.js';

/** Does the clause hold an `if` statement? (Nested ones sit inside a top-level one.) */
export function hasIfStatement(c: A.Clause): boolean {
  return (c.body ?? []).some((s) => s.kind === 'IfStatement');
}

/** The plain clauses, in execution order, equivalent to a clause holding `if` statements. */
export function desugarClause(c: A.Clause): A.Clause[] {
  const out: A.Clause[] = [];
  let conditions = 0;

  const conditionVar = (id: number): A.Expression => ({ kind: 'ClauseLocal', ...at(c), name: `%condition_${id}` });

  /** A clause computing a new condition: `this->%condition_N = (outer && test)`. */
  const newCondition = (test: A.Expression, outer: number): number => {
    const id = ++conditions;
    const left: A.Expression = outer === 0 ? one(test) : conditionVar(outer);
    const value: A.Expression = { kind: 'Binary', ...at(test), op: '&&', left, right: test };
    const assign: A.Expression = { kind: 'Assignment', ...at(test), op: '=', target: conditionVar(id), value };
    out.push({ ...c, predicate: null, body: [{ kind: 'ExpressionStatement', ...at(test), expression: assign }] });
    return id;
  };

  const block = (stmts: A.Statement[], condition: number): void => {
    out.push({ ...c, ...(stmts.length ? at(stmts[0]) : {}), predicate: condition ? conditionVar(condition) : null, body: stmts });
  };

  const visit = (stmts: A.Statement[], condition: number): void => {
    let pending: A.Statement[] = [];
    for (const s of stmts) {
      if (s.kind !== 'IfStatement') {
        pending.push(s);
        continue;
      }
      if (pending.length) block(pending, condition);
      pending = [];
      const taken = newCondition(s.test, condition);
      visit(s.consequent, taken);
      if (s.alternate !== null) {
        const not: A.Expression = { kind: 'Unary', ...at(s.test), op: '!', operand: conditionVar(taken) };
        visit(s.alternate, newCondition(not, condition));
      }
    }
    if (pending.length) block(pending, condition);
  };

  const top = c.predicate ? newCondition(c.predicate, 0) : 0;
  visit(c.body ?? [], top);
  return out;
}

/** `1`, typed int as DTrace's sugar makes it, so that every condition variable is an int. */
function one(near: A.Position): A.Expression {
  return { kind: 'IntegerLiteral', ...at(near), value: 1n, text: '1', suffix: '', decimal: true, isChar: false };
}

function at(p: A.Position): A.Position {
  const q: A.Position = { line: p.line, column: p.column };
  if (p.file !== undefined) q.file = p.file;
  return q;
}
