// tracemem(addr, size [, dynsize]): trace `size` bytes of kernel memory at `addr`.
//
// As libdtrace compiles it (dt_cc.c dt_action_tracemem): the address is a DTRACEACT_TRACEMEM
// action whose DIF object returns by reference a value of the constant size, so the record holds
// the bytes themselves; a dynamic size is a DTRACEACT_TRACEMEM_DYNSIZE action before it, an
// 8-byte integer record telling the consumer how many of those bytes to show.

import * as D from '../dif/constants.js';
import type { ActionDescription } from '../dof/program.js';
import type * as A from './ast.js';
import { constValue } from './aggregations.js';
import type { CodeGenerator } from './codegen.js';
import { err } from './codegen.js';
import { protoArgMessage } from './errors.js';
import { typeName } from './types.js';

export function tracememActions(cg: CodeGenerator, call: A.Call, actions: ActionDescription[]): void {
  const args = call.args;
  // The count was checked against ACTION_PROTOTYPES (codegen.ts) before this.

  const size = constValue(args[1], cg.types);
  if (size === null || size <= 0n)
    throw err('D_TRACEMEM_SIZE', 'tracemem( ) argument #2 must be a non-zero positive integral constant expression', args[1]);

  if (args.length === 3) {
    const g = cg.difoGen();
    const v = g.expr(args[2]);
    if (v.type.kind !== 'int' && v.type.kind !== 'pointer' && v.type.kind !== 'enum')
      throw err('D_PROTO_ARG', protoArgMessage('tracemem', 3, 'size_t', typeName(v.type)), args[2]);
    const difo = g.finish(v, { kind: 'int', name: 'uint64_t', size: 8, signed: false });
    actions.push({ kind: D.DTRACEACT_TRACEMEM_DYNSIZE, difo, ntuple: 0, arg: 0n, uarg: 0n });
  }

  const g = cg.difoGen();
  const v = g.expr(args[0]);
  const t = v.type;
  if (t.kind !== 'int' && t.kind !== 'pointer' && t.kind !== 'array' && t.kind !== 'enum')
    throw err('D_TRACEMEM_ADDR', `tracemem( ) argument #1 is incompatible with prototype:\n\tprototype: pointer or integer\n\t argument: ${typeName(t)}`, args[0]);
  const difo = g.finish(v, t);
  difo.rtype = { ...difo.rtype, flags: difo.rtype.flags | D.DIF_TF_BYREF, size: Number(size) };
  actions.push({ kind: D.DTRACEACT_TRACEMEM, difo, ntuple: 0, arg: 0n, uarg: 0n });
}
