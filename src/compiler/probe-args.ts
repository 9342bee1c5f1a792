// args[N]: a probe's typed arguments, typed from the argument description of the probes the clause
// enables (tracepoint format fields for syscall and sdt probes, and so on), with libdtrace's
// checks and messages (dt_idcook_args): the index must be an integer constant within the probes'
// argument count, and every probe of a description must agree on the argument's type.
//
// args[N] is argN seen through its type: narrowed to the type's width when it is an integer. When
// a provider describes args[N] as the translation of argN's native type (proc, sched and io:
// psinfo_t * of a struct task_struct *, ...), args[N]->member is the D library translator's
// member, as DTrace compiles it.

import type * as A from './ast.js';
import { DifoGen, type Val, err } from './codegen.js';
import { narrow } from './typed-expr.js';
import { typeName, TRANSLATED_POINTER_TYPE, TRANSLATED_TYPE } from './types.js';
import type { ProbeDescription } from '../dof/program.js';
import type { Probe as ProviderProbe } from '../providers/provider.js';

/** The probes each description of the clause being compiled matches. */
export interface ClauseProbes {
  desc: ProbeDescription;
  probes: ProviderProbe[];
  /** Why the description matches nothing here, when -Z let it match nothing (": fbt provider: ..."). */
  why?: string;
}

/** Is this `args[...]`? */
export function isArgsReference(e: A.Index): boolean {
  return e.base.kind === 'Identifier' && e.base.name === 'args' && e.base.module === undefined;
}

/** dtrace_desc2str: provider:module:function:name. */
function descText(d: ProbeDescription): string {
  return `${d.provider}:${d.module}:${d.function}:${d.name}`;
}

/** A probe's args[]: each one's type (null: untyped), native type when translated, and its argN. */
function argsOf(p: ProviderProbe): { type: string | null; native?: string; arg: number }[] {
  return p.xargs ?? p.args.map((a) => ({ type: a.type, native: a.native, arg: a.index }));
}

/** The index of `args[N]`, the argN it is, and the argument description the clause's probes agree on. */
function argOf(g: DifoGen, e: A.Index): { index: bigint; arg: number; type: string | undefined; native: string | undefined } {
  if (e.keys.length !== 1) {
    throw err('D_PROTO_LEN', `args[ ] prototype mismatch: ${e.keys.length} arg${e.keys.length === 1 ? ' ' : 's '}passed, 1 expected`, e);
  }
  const key = e.keys[0];
  let index: bigint;
  try {
    index = g.cg.types.constant(key);
  } catch {
    const scratch = new DifoGen(g.cg, g.opts);
    const t = scratch.expr(key).type;
    throw err('D_PROTO_ARG', `args[ ] argument #1 is incompatible with prototype:\n\tprototype: integer constant\n\t argument: ${typeName(t)}`, e);
  }
  const clause = g.cg.clauseProbes;
  if (!clause) throw err('D_ARGS_NONE', 'args[ ] may not be referenced outside of a probe clause', e);
  let type: string | undefined;
  let native: string | undefined;
  let arg = Number(index);
  for (const { desc, probes, why } of clause) {
    if (probes.length === 0 || !sameSignature(probes)) {
      const e2 = err('D_ARGS_MULTI', `args[ ] may not be referenced because probe description ${descText(desc)} matches an unstable set of probes`, e);
      // Under -Z a description may match nothing: say so, since no probe means no argument types.
      if (probes.length === 0) e2.hint = `it matches no probes${why ?? ''}`;
      throw e2;
    }
    const args = argsOf(probes[0]);
    if (index < 0n || index >= BigInt(args.length)) {
      throw err('D_ARGS_IDX', `index ${index} is out of range for ${descText(desc)} args[ ]`, e);
    }
    const a = args[Number(index)];
    if (a.type === null) throw err('D_ARGS_TYPE', `failed to resolve native type for args[${index}]`, e);
    if (type !== undefined && (type !== a.type || native !== a.native || arg !== a.arg)) {
      throw err('D_ARGS_MULTI', `args[ ] may not be referenced because probe description ${descText(desc)} matches an unstable set of probes`, e);
    }
    type = a.type;
    native = a.native;
    arg = a.arg;
  }
  // A provider's translated or library-typed args[] need the D library even when the program
  // never names its types.
  if (type !== undefined) g.cg.libraryFor?.(native === undefined ? [type] : [type, native]);
  return { index, arg, type, native };
}

export function argsElement(g: DifoGen, e: A.Index): Val {
  const { index, arg, type, native } = argOf(g, e);
  const dtype = type === undefined ? undefined : g.cg.types.typeFromDeclaration(type);
  if (!dtype) throw err('D_ARGS_TYPE', `failed to resolve native type for args[${index}]`, e);
  // A translated args[N] is translated data, which each use but a member reference refuses in
  // its own words (trace( ) may not be applied to a dynamic expression, ...), as DTrace does.
  if (native !== undefined) return { reg: 0, type: dtype.kind === 'pointer' ? TRANSLATED_POINTER_TYPE : TRANSLATED_TYPE };
  if (arg > 9) throw err('D_UNSUPPORTED', `args[${index}] is not supported: this device passes 10 arguments (args[0] to args[9])`, e);
  const v = g.expr({ kind: 'Identifier', line: e.line, column: e.column, file: e.file, name: `arg${arg}` });
  if (dtype.kind === 'int') narrow(g, v.reg, dtype, e);
  return { reg: v.reg, type: dtype };
}

/**
 * A translated `args[N]` as the xlate it stands for, `xlate<T>((NATIVE)argN)` (DTrace's
 * args[] of a provider with translators); undefined when args[N] is not translated.
 */
export function translatedArg(g: DifoGen, e: A.Index): A.Xlate | undefined {
  const { arg, type, native } = argOf(g, e);
  if (native === undefined || type === undefined) return undefined;
  const pos: A.Position = { line: e.line, column: e.column };
  if (e.file !== undefined) pos.file = e.file;
  const argN: A.Expression = { kind: 'Identifier', ...pos, name: `arg${arg}` };
  const operand: A.Expression = { kind: 'Cast', ...pos, type: typeNameOf(native, pos), operand: argN };
  return { kind: 'Xlate', ...pos, type: typeNameOf(type, pos), operand };
}

const BUILTIN_WORDS = new Set(['char', 'short', 'int', 'long']);

/** The type name of a provider's argument description: `NAME *...` or `struct TAG *...`. */
function typeNameOf(text: string, pos: A.Position): A.TypeName {
  const m = /^\s*(struct\s+)?(\w+)\s*((?:\*\s*)*)$/.exec(text);
  if (!m) throw new Error(`unexpected argument type "${text}"`);
  const specifier: A.TypeSpecifier = m[1]
    ? { kind: 'StructType', ...pos, union: false, tag: m[2], members: null }
    : BUILTIN_WORDS.has(m[2]) ? { kind: 'BuiltinType', ...pos, name: m[2], words: [m[2]] } // tcp's tcplsinfo_t < int >
    : { kind: 'TypedefName', ...pos, name: m[2] };
  let type: A.TypeExpression = { kind: 'NamedType', ...pos, specifier, qualifiers: [], userland: false };
  for (let i = 0; i < (m[3].match(/\*/g) ?? []).length; i++) type = { kind: 'PointerType', ...pos, to: type, qualifiers: [] };
  return { kind: 'TypeName', ...pos, type };
}

/** Do all these probes describe their arguments alike? */
function sameSignature(probes: ProviderProbe[]): boolean {
  const sig = (p: ProviderProbe) => argsOf(p).map((a) => `${a.type ?? '?'}<${a.native ?? ''}>${a.arg}`).join(',');
  const first = sig(probes[0]);
  return probes.every((p) => sig(p) === first);
}
