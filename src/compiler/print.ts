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
import { PRINT_ADDRESS_FORMAT, PRINT_FORMAT_PREFIX, type StructNode, type TypeDescriptor, type TypeNode } from '../abi/print-schema.js';

/** Describe a D type, every struct or union once. */
export function describeType(t: DType, strsize: number): TypeDescriptor {
  const structs: StructNode[] = [];
  const index = new Map<StructDef, number>();
  const node = (t: DType): TypeNode => {
    switch (t.kind) {
      case 'int': {
        const n = t.spelling ?? t.name;
        return t.size === 1 && (t.signed || t.name === 'char') ? { k: 'int', n, z: 1, s: t.signed, c: true } : { k: 'int', n, z: t.size, s: t.signed };
      }
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
  // print()'s prototype is print(void *): as in DTrace for Linux it takes a pointer and prints
  // what it points to; an aggregation, a void or any other non-pointer value does not fit.
  if (args[0].kind === 'Aggregation') throw err('D_PROTO_ARG', protoArgMessage('print', 1, 'void *', 'aggregation'), args[0]);
  const g = cg.difoGen();
  const v = g.expr(args[0]);
  if (v.type.kind !== 'pointer') throw err('D_PROTO_ARG', protoArgMessage('print', 1, 'void *', typeName(v.type)), args[0]);
  // Two records: the address, then the value it points to (read by reference when a struct).
  const addr = g.finish(v, v.type);
  const dg = cg.difoGen();
  const deref: A.Unary = { kind: 'Unary', op: '*', operand: args[0], line: args[0].line, column: args[0].column, file: args[0].file };
  let target;
  try {
    target = dg.expr(deref);
  } catch (e) {
    if (v.type.to === undefined || sizeOf(v.type.to, strsize) !== 0) throw e;
    target = undefined;
  }
  const pointee = target?.type ?? v.type.to!;
  if (target === undefined || sizeOf(pointee, strsize) === 0)
    throw err('D_PRINT_SIZE', `print( ) argument #1 reference has type '${typeName(pointee)}' with size 0; cannot print( ) it.`, args[0]);
  const difo = dg.finish(target, target.type);
  actions.push({ kind: D.DTRACEACT_DIFEXPR, difo: addr, ntuple: 0, arg: 0n, uarg: 0n, format: PRINT_ADDRESS_FORMAT });
  const format = PRINT_FORMAT_PREFIX + JSON.stringify(describeType(pointee, strsize));
  actions.push({ kind: D.DTRACEACT_DIFEXPR, difo, ntuple: 0, arg: 0n, uarg: 0n, format });
}
