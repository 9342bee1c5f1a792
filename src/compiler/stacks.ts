// Code generation for the stack and symbol actions: stack(), ustack(), jstack() and sym()/func(),
// mod(), usym()/ufunc(), umod(), uaddr() -- as statements (records of their own) and as
// aggregation keys (`@[stack()] = count()`).
//
// As in libdtrace: stack() is a DTRACEACT_STACK action without a DIF object whose arg is the
// number of frames; ustack() and jstack() carry DTRACE_USTACK_ARG(frames, strsize); the symbol
// actions are their kind with a DIF object computing the address (an 8-byte value). The number of
// frames is resolved here from the stackframes/ustackframes/jstackframes options, so that the
// kernel side knows each record's size from the DOF alone.

import * as D from '../dif/constants.js';
import type { ActionDescription } from '../dof/program.js';
import type * as A from './ast.js';
import { type CodeGenerator, type CodegenOptions, DifoGen, err } from './codegen.js';
import { constValue } from './aggregations.js';
import { ULONG, isInteger, typeName, type DType } from './types.js';
import { optionDefault } from '../options.js';
import { ACTION_PROTOTYPES, actionArity } from '../dif/subroutines.js';
import { protoArgMessage, protoLenMessage } from './errors.js';

/** stack()/ustack()/jstack()'s count against its prototype (also as an aggregation key). */
function arity(name: string, n: number, call: A.Call): void {
  const mismatch = protoLenMessage(name, n, ...actionArity(ACTION_PROTOTYPES.get(name)!));
  if (mismatch) throw err('D_PROTO_LEN', mismatch, call);
}

/** A frame count or string size that is not an integer at all: the prototype's uint32_t. */
function integerArg(cg: CodeGenerator, opts: CodegenOptions, name: string, args: A.Expression[], i: number): void {
  const t = new DifoGen(cg, opts).expr(args[i]).type;
  if (!isInteger(t)) throw err('D_PROTO_ARG', protoArgMessage(name, i + 1, ACTION_PROTOTYPES.get(name)!.args[i], typeName(t)), args[i]);
}

const SYMBOL_ACTIONS: Record<string, number> = {
  sym: D.DTRACEACT_SYM, func: D.DTRACEACT_SYM, mod: D.DTRACEACT_MOD,
  usym: D.DTRACEACT_USYM, ufunc: D.DTRACEACT_USYM, umod: D.DTRACEACT_UMOD, uaddr: D.DTRACEACT_UADDR,
};

/** The pseudo-type of a stack key, for printa's format checks (%k). */
export const STACK_TYPE: DType = { kind: 'int', name: 'stack', size: 8, signed: false };

/** Is this call one of the stack or symbol actions? */
export function isStackCall(e: A.Expression): e is A.Call & { callee: A.Identifier } {
  if (e.kind !== 'Call' || e.callee.kind !== 'Identifier') return false;
  return isStackActionName(e.callee.name);
}

/** Does this name one of the stack or symbol actions (func, sym, uaddr, ...)? */
export function isStackActionName(n: string): boolean {
  return n === 'stack' || n === 'ustack' || n === 'jstack' || n in SYMBOL_ACTIONS;
}

function plain(kind: number): ActionDescription {
  return { kind, difo: null, ntuple: 0, arg: 0n, uarg: 0n };
}

/** The value of a numeric option (-x or #pragma), or its default. */
function option(opts: CodegenOptions & { option?: (name: string) => string | undefined }, name: string): number {
  const v = opts.option?.(name);
  const n = Number(v);
  return v !== undefined && v !== 'unset' && Number.isFinite(n) && n > 0 ? n : Number(optionDefault(name));
}

/** stack(), ustack() and friends as an action (statement or aggregation key), with its DTrace checks. */
export function stackAction(cg: CodeGenerator, opts: CodegenOptions, call: A.Call & { callee: A.Identifier }): { action: ActionDescription; type: DType } {
  const name = call.callee.name;
  const args = call.args;
  if (name === 'stack') {
    let frames = option(opts, 'stackframes');
    arity(name, args.length, call);
    if (args.length === 1) {
      integerArg(cg, opts, name, args, 0);
      const v = constValue(args[0], cg.types);
      if (v === null || v <= 0n) throw err('D_STACK_SIZE', 'stack( ) argument #1 must be a non-zero positive integer constant', call);
      frames = Number(v);
    }
    // As in DTrace, a larger count is quietly cut to maxframes.
    return { action: { ...plain(D.DTRACEACT_STACK), arg: BigInt(Math.min(frames, option(opts, 'maxframes'))) }, type: STACK_TYPE };
  }
  if (name === 'ustack' || name === 'jstack') {
    const java = name === 'jstack';
    let frames = option(opts, java ? 'jstackframes' : 'ustackframes');
    let strsize = java ? option(opts, 'jstackstrsize') : 0;
    arity(name, args.length, call);
    args.forEach((_, i) => integerArg(cg, opts, name, args, i));
    if (args.length >= 1) {
      const v = constValue(args[0], cg.types);
      if (v === null || v <= 0n) throw err('D_USTACK_FRAMES', `${name}( ) argument #1 must be a non-zero positive integer constant`, call);
      frames = Number(v);
    }
    if (args.length === 2) {
      const v = constValue(args[1], cg.types);
      if (v === null || v < 0n) throw err('D_USTACK_STRSIZE', `${name}( ) argument #2 must be a positive integer constant`, call);
      strsize = Number(v);
    }
    const kind = java ? D.DTRACEACT_JSTACK : D.DTRACEACT_USTACK;
    // As in DTrace, a larger count is quietly cut to maxframes.
    frames = Math.min(frames, option(opts, 'maxframes'));
    return { action: { ...plain(kind), arg: D.packUstackArg(frames, strsize) }, type: STACK_TYPE };
  }
  // The symbol actions: one address argument.
  if (args.length !== 1)
    throw err('D_PROTO_LEN', `${name}( ) prototype mismatch: ${args.length} arg${args.length === 1 ? '' : 's'} passed, 1 expected`, call);
  const g = new DifoGen(cg, opts);
  const v = g.expr(args[0]);
  if (!isInteger(v.type) && v.type.kind !== 'pointer') {
    const proto = name.startsWith('u') ? '_usymaddr' : '_symaddr';
    throw err('D_PROTO_ARG', `${name}( ) argument #1 is incompatible with prototype:\n\tprototype: ${proto}\n\t argument: ${typeName(v.type)}`, call);
  }
  const difo = g.finish(v, ULONG);
  // As keys, printa's %a and %A take them (DTrace's _symaddr and _usymaddr types).
  const type: DType = { kind: 'int', size: 8, signed: false, name: name.startsWith('u') ? '_usymaddr' : '_symaddr' };
  return { action: { ...plain(SYMBOL_ACTIONS[name]), difo }, type };
}
