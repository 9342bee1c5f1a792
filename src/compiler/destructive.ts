// Destructive actions: raise(), stop(), system(), freopen(), chill(), copyout(), copyoutstr(), and the
// kernel-wide panic() and breakpoint() that Linux cannot honour.
//
// They compile as libdtrace compiles them (one action each, its argument as the action's DIF
// object; system() and freopen() like printf(); copyout/copyoutstr as a void expression calling the DIF
// subroutine). Whether they may run is decided when tracing is enabled, as DTrace does:
// without -w or `#pragma D option destructive` dtrace(1) stops with "could not enable tracing:
// Destructive actions not allowed" (usesDestructiveActions tells the command line).

import * as D from '../dif/constants.js';
import { encodeCall } from '../dif/builder.js';
import type { ActionDescription, Program } from '../dof/program.js';
import type { Difo } from '../dif/difo.js';
import { resolveSignedness, validateFormat } from '../abi/printf-format.js';
import type * as A from './ast.js';
import { type CodeGenerator, type DifoGen, type Val, err, formatNotConstant, printfArgType } from './codegen.js';
import { INT, VOID, isInteger, typeName, type DType } from './types.js';

/** Why panic() and breakpoint() cannot apply on Linux. */
const REFUSED: ReadonlyMap<string, string> = new Map([
  ['panic', 'eBPF programs cannot panic the Linux kernel'],
  ['breakpoint', 'eBPF programs cannot enter a kernel debugger on Linux'],
]);

const ACTIONS = new Set(['raise', 'stop', 'system', 'freopen', 'chill', 'copyout', 'copyoutstr', 'panic', 'breakpoint']);

function act(kind: number, difo: Difo | null): ActionDescription {
  return { kind, difo, ntuple: 0, arg: 0n, uarg: 0n };
}

function protoLen(name: string, call: A.Call, n: number): void {
  if (call.args.length !== n)
    throw err('D_PROTO_LEN', `${name}( ) prototype mismatch: ${call.args.length} arg${call.args.length === 1 ? '' : 's'} passed, ${n} expected`, call);
}

function protoArg(name: string, i: number, want: string, v: Val, at: A.Expression): never {
  throw err('D_PROTO_ARG', `${name}( ) argument #${i + 1} is incompatible with prototype:\n\tprototype: ${want}\n\t argument: ${typeName(v.type)}`, at);
}

const integral = (t: DType) => isInteger(t) || t.kind === 'pointer';

/** Compile a destructive action; false when `name` is not one. */
export function destructiveAction(cg: CodeGenerator, call: A.Call, name: string, actions: ActionDescription[]): boolean {
  if (!ACTIONS.has(name)) return false;
  const why = REFUSED.get(name);
  if (why) throw err('D_ACT_UNSUPP', `${name}( ) is not available on Linux: ${why}`, call);
  const args = call.args;
  switch (name) {
    case 'stop':
      protoLen(name, call, 0);
      actions.push(act(D.DTRACEACT_STOP, null));
      return true;
    case 'raise':
    case 'chill': {
      protoLen(name, call, 1);
      const g = cg.difoGen();
      const v = g.expr(args[0]);
      if (!isInteger(v.type)) protoArg(name, 0, 'int', v, args[0]);
      actions.push(act(name === 'raise' ? D.DTRACEACT_RAISE : D.DTRACEACT_CHILL, g.finish(v, INT)));
      return true;
    }
    case 'system':
    case 'freopen':
      system(cg, call, actions, name);
      return true;
    default:
      copyout(cg, call, name, actions);
      return true;
  }
}

/**
 * system(fmt, ...) and freopen(fmt, ...): printf-like; the consumer runs the formatted command, or
 * sends what follows to the formatted file ("" for dtrace's own output again).
 */
function system(cg: CodeGenerator, call: A.Call, actions: ActionDescription[], name: 'system' | 'freopen'): void {
  const args = call.args;
  const kind = name === 'system' ? D.DTRACEACT_SYSTEM : D.DTRACEACT_FREOPEN;
  const fmt = args[0];
  if (fmt.kind !== 'StringLiteral') formatNotConstant(cg, name, fmt, false);
  const vals = args.slice(1).map((a) => {
    const g = cg.difoGen();
    const v = g.expr(a);
    return { difo: g.finish(v, v.type), type: v.type };
  });
  const types = vals.map((v) => printfArgType(v.type));
  // freopen("") sends the output back to dtrace's own, as libdtrace allows (an empty format is
  // otherwise refused).
  const restore = name === 'freopen' && fmt.value === '' && vals.length === 0;
  const problem = restore ? null : validateFormat(fmt.value, types, { func: name, exactLength: true });
  if (problem) throw err(problem.tag, problem.message, call);
  const format = resolveSignedness(fmt.value, types);
  if (vals.length === 0) {
    const g = cg.difoGen();
    actions.push({ ...act(kind, g.finish({ reg: 0, type: VOID }, VOID)), format });
    return;
  }
  vals.forEach((v, i) => {
    actions.push(i === 0 ? { ...act(kind, v.difo), format } : act(D.DTRACEACT_DIFEXPR, v.difo));
  });
}

/** copyout(buf, addr, nbytes) / copyoutstr(str, addr, maxlen): a void expression calling the subroutine. */
function copyout(cg: CodeGenerator, call: A.Call, name: string, actions: ActionDescription[]): void {
  protoLen(name, call, 3);
  const g: DifoGen = cg.difoGen();
  const str = name === 'copyoutstr';
  const wants = [str ? 'char *' : 'void *', 'uintptr_t', 'size_t'];
  const vals = call.args.map((a, i) => {
    const v = g.expr(a);
    const ok = i === 0
      ? (str ? v.type.kind === 'string' || v.type.kind === 'pointer' || v.type.kind === 'array' : v.type.kind === 'pointer' || v.type.kind === 'array' || v.type.kind === 'string')
      : integral(v.type);
    if (!ok) protoArg(name, i, wants[i], v, a);
    return v;
  });
  g.pushTuple(vals);
  for (const v of vals) g.release(v.reg);
  const rd = g.alloc(call);
  g.b.emit(encodeCall(str ? D.DIF_SUBR_COPYOUTSTR : D.DIF_SUBR_COPYOUT, rd));
  g.flushTuple();
  actions.push(act(D.DTRACEACT_DIFEXPR, g.finish({ reg: rd, type: VOID }, VOID)));
}

/** Does the program hold an action or subroutine that needs -w (DTrace's DIFOFLG_DESTRUCTIVE)? */
export function usesDestructiveActions(program: Program): boolean {
  return program.ecbs.some((e) => e.actions.some((a) => D.isDestructiveAction(a.kind) ||
    (a.difo?.insns.some((ins) => ins >>> 24 === D.DIF_OP_CALL &&
      [D.DIF_SUBR_COPYOUT, D.DIF_SUBR_COPYOUTSTR].includes((ins >>> 8) & 0xffff)) ?? false)));
}

/** The message dtrace(1) ends with when destructive actions are not allowed. */
export const DESTRUCTIVE_NOT_ALLOWED = 'could not enable tracing: Destructive actions not allowed';
