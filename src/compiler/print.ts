// print(expr): trace a value with its type, for the consumer to print as DTrace's print() does.
//
// libdtrace compiles print() as a DTRACEACT_DIFEXPR whose DOF format string names the value's CTF
// type ("module`id"); the consumer looks that id up in the same CTF. Our consumer has no CTF, so
// the string carries the type itself: "print`" then the JSON of a TypeDescriptor
// (src/abi/print-schema.ts), with every struct and union described once in a table. DOF stays the only contract.

import * as D from '../dif/constants.js';
import type { ActionDescription } from '../dof/program.js';
import type * as A from './ast.js';
import type { CodeGenerator } from './codegen.js';
import { err } from './codegen.js';
import { protoArgMessage } from './errors.js';
import { type DType, type StructDef, typeName } from './types.js';
import { PRINT_FORMAT_PREFIX, type StructNode, type TypeDescriptor, type TypeNode } from '../abi/print-schema.js';

/** Describe a D type, every struct or union once. */
export function describeType(t: DType, strsize: number): TypeDescriptor {
  const structs: StructNode[] = [];
  const index = new Map<StructDef, number>();
  const node = (t: DType): TypeNode => {
    switch (t.kind) {
      case 'int': return t.size === 1 && (t.signed || t.name === 'char') ? { k: 'int', n: t.name, z: 1, s: t.signed, c: true } : { k: 'int', n: t.name, z: t.size, s: t.signed };
      case 'float': return { k: 'float', n: t.name, z: t.size };
      case 'pointer': return { k: 'ptr', n: t.name };
      case 'string': return { k: 'string', z: strsize };
      case 'array': {
        const e = node(t.of);
        return { k: 'array', n: typeName(t), e, c: t.count, z: sizeOf(t.of, strsize) };
      }
      case 'struct': {
        let i = index.get(t.def);
        if (i === undefined) {
          i = structs.length;
          index.set(t.def, i);
          const s: StructNode = { union: t.def.union, size: t.def.size, complete: t.def.complete, m: [] };
          structs.push(s);
          if (t.def.complete) s.m = t.def.members().map((m) => [m.name, m.bitOffset, m.bits, node(m.type)]);
        }
        // CTF names an anonymous struct or union "struct " / "union ".
        const n = t.name ?? (t.def.tag === null ? (t.def.union ? 'union ' : 'struct ') : typeName(t));
        return { k: 'struct', n, i };
      }
      case 'enum': return { k: 'enum', n: typeName(t), v: [...t.def.values].map(([k, v]) => [k, v.toString()]) };
      case 'function': return { k: 'func', n: t.name };
      case 'void': return { k: 'void' };
    }
  };
  return { t: node(t), s: structs };
}

function sizeOf(t: DType, strsize: number): number {
  switch (t.kind) {
    case 'int': case 'float': return t.size;
    case 'pointer': return 8;
    case 'string': return strsize;
    case 'array': return t.count * sizeOf(t.of, strsize);
    case 'struct': return t.def.size;
    case 'enum': return 4;
    default: return 0;
  }
}

export function printAction(cg: CodeGenerator, call: A.Call, strsize: number, actions: ActionDescription[]): void {
  const args = call.args;
  if (args.length !== 1)
    throw err('D_PROTO_LEN', `print( ) prototype mismatch: ${args.length} arg${args.length === 1 ? '' : 's'} passed, 1 expected`, call);
  // print()'s prototype is print(void *): an aggregation or a void expression does not fit it.
  if (args[0].kind === 'Aggregation') throw err('D_PROTO_ARG', protoArgMessage('print', 1, 'void *', 'aggregation'), args[0]);
  const g = cg.difoGen();
  const v = g.expr(args[0]);
  if (v.type.kind === 'void') throw err('D_PROTO_ARG', protoArgMessage('print', 1, 'void *', 'void'), args[0]);
  const difo = g.finish(v, v.type);
  const format = PRINT_FORMAT_PREFIX + JSON.stringify(describeType(v.type, strsize));
  actions.push({ kind: D.DTRACEACT_DIFEXPR, difo, ntuple: 0, arg: 0n, uarg: 0n, format });
}
