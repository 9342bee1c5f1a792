// setopt(option [, value]): `void setopt(const char *, [const char *])`, as libdtrace compiles it:
// two DTRACEACT_LIBACT actions whose arg is DT_ACT_SETOPT, the first returning the option's name,
// the second its value -- or the constant 0 when no value is given, which the consumer reads as
// "1", as dt_consume does. The consumer sets the option while tracing (consumer/setopt.ts).

import * as D from '../dif/constants.js';
import type { ActionDescription } from '../dof/program.js';
import type * as A from './ast.js';
import { type CodeGenerator, err } from './codegen.js';
import { INT, STRING, typeName } from './types.js';

export function setoptActions(cg: CodeGenerator, call: A.Call, actions: ActionDescription[]): void {
  const args = call.args;
  // The count was checked against ACTION_PROTOTYPES (codegen.ts) before this.
  const setopt = (difo: ActionDescription['difo']): ActionDescription =>
    ({ kind: D.DTRACEACT_LIBACT, difo, ntuple: 0, arg: BigInt(D.DT_ACT_SETOPT), uarg: 0n });
  // Both arguments are checked before any action is made, as the prototype check comes first.
  const difos = args.map((a, i) => {
    const g = cg.difoGen();
    const v = g.expr(a);
    const k = v.type.kind;
    if (k !== 'string' && k !== 'pointer' && k !== 'array') {
      throw err('D_PROTO_ARG', `setopt( ) argument #${i + 1} is incompatible with prototype:\n\tprototype: char *\n\t argument: ${typeName(v.type)}`, a);
    }
    // A char pointer is a string by reference, as D passes strings.
    return g.finish(v, STRING);
  });
  if (difos.length === 1) {
    const g = cg.difoGen();
    const r = g.alloc(call as unknown as A.Expression);
    g.b.setx(0n, r);
    difos.push(g.finish({ reg: r, type: INT }, INT));
  }
  for (const difo of difos) actions.push(setopt(difo));
}
