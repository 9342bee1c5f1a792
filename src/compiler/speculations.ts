// Speculative tracing in the compiler: the speculate(), commit() and discard() actions, and the
// rules DTrace's compiler enforces on how they combine with other actions in one clause.
//
// speculation() itself is an ordinary subroutine (subroutines.ts). The actions carry the
// speculation id as their DIF object's value; they record no data (the kernel gives them size 0).

import * as D from '../dif/constants.js';
import type { ActionDescription } from '../dof/program.js';
import type { Difo } from '../dif/difo.js';
import type * as A from './ast.js';
import { type DifoGen, err } from './codegen.js';
import { INT, isInteger, typeName } from './types.js';

const ACTIONS: ReadonlyMap<string, number> = new Map([
  ['speculate', D.DTRACEACT_SPECULATE],
  ['commit', D.DTRACEACT_COMMIT],
  ['discard', D.DTRACEACT_DISCARD],
]);

/** Compile speculate(id), commit(id) or discard(id): prototype void(int). */
export function speculationAction(g: DifoGen, call: A.Call, name: string, actions: ActionDescription[]): void {
  const kind = ACTIONS.get(name)!;
  if (call.args.length !== 1) {
    const n = call.args.length;
    throw err('D_PROTO_LEN', `${name}( ) prototype mismatch: ${n} arg${n === 1 ? '' : 's'} passed, 1 expected`, call);
  }
  const v = g.expr(call.args[0]);
  if (!isInteger(v.type))
    throw err('D_PROTO_ARG', `${name}( ) argument #1 is incompatible with prototype:\n\tprototype: int\n\t argument: ${typeName(v.type)}`, call);
  actions.push({ kind, difo: g.finish(v, INT), ntuple: 0, arg: 0n, uarg: 0n });
}

/** Does this DIF object call a destructive subroutine (copyout, copyoutstr)? */
function destructiveDifo(d: Difo | null): boolean {
  if (!d) return false;
  for (const ins of d.insns) {
    if (ins >>> 24 !== D.DIF_OP_CALL) continue;
    const subr = (ins >>> 8) & 0xffff;
    if (subr === D.DIF_SUBR_COPYOUT || subr === D.DIF_SUBR_COPYOUTSTR) return true;
  }
  return false;
}

function destructive(a: ActionDescription): boolean {
  return D.isDestructiveAction(a.kind) || (a.kind === D.DTRACEACT_DIFEXPR && destructiveDifo(a.difo));
}

/** A void expression statement: side effects only, no data. */
function voidExpression(a: ActionDescription): boolean {
  return a.kind === D.DTRACEACT_DIFEXPR && !!a.difo && a.difo.rtype.kind === D.DIF_TYPE_CTF && a.difo.rtype.size === 0;
}

/**
 * DTrace's rules on the order of speculate(), commit() and data-recording actions in a clause,
 * checked as each statement appends its actions (as DTrace checks each statement it appends to an
 * ECB): the first rule broken is reported at that statement. Each action is looked at once.
 */
export class SpeculationOrder {
  private commit = false;
  /** A commit() with no discard() after it: another commit() may not follow (one after a discard() may). */
  private commitLast = false;
  private speculate = false;
  private datarec = false;
  private seen = 0;

  /** Check the actions `at` added (those after the ones already checked). */
  check(actions: ActionDescription[], at: { line: number; column: number }): void {
    for (; this.seen < actions.length; this.seen++) this.action(actions[this.seen]!, at);
  }

  private action(a: ActionDescription, at: { line: number; column: number }): void {
    if (a.kind === D.DTRACEACT_COMMIT) {
      if (this.commitLast) throw err('D_COMM_COMM', 'commit( ) may not follow commit( )', at);
      if (this.datarec) throw err('D_COMM_DREC', 'commit( ) may not follow data-recording action(s)', at);
      this.commit = this.commitLast = true;
      return;
    }
    if (a.kind === D.DTRACEACT_SPECULATE) {
      if (this.speculate) throw err('D_SPEC_SPEC', 'speculate( ) may not follow speculate( )', at);
      if (this.commit) throw err('D_SPEC_COMM', 'speculate( ) may not follow commit( )', at);
      if (this.datarec) throw err('D_SPEC_DREC', 'speculate( ) may not follow data-recording action(s)', at);
      this.speculate = true;
      return;
    }
    if (D.isAggregatingAction(a.kind)) {
      if (this.commit) throw err('D_AGG_COMM', 'aggregating actions may not follow commit( )', at);
      if (this.speculate) throw err('D_AGG_SPEC', 'aggregating actions may not follow speculate( )', at);
      this.datarec = true;
      return;
    }
    if (this.speculate) {
      if (destructive(a)) throw err('D_ACT_SPEC', 'destructive actions may not follow speculate( )', at);
      if (a.kind === D.DTRACEACT_EXIT) throw err('D_EXIT_SPEC', 'exit( ) may not follow speculate( )', at);
    }
    if (a.kind === D.DTRACEACT_DISCARD) this.commitLast = false;
    if (destructive(a) || a.kind === D.DTRACEACT_DISCARD || voidExpression(a)) return;
    if (this.commit) throw err('D_DREC_COMM', 'data-recording actions may not follow commit( )', at);
    if (!this.speculate) this.datarec = true;
  }
}
