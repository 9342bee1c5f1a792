// D translators: `translator OUT < IN *p > { member = expr; ... };` and `xlate <OUT> (e)`.
//
// As libdtrace does, a translated member reference (`xlate<T *>(e)->m`, `xlate<T>(e).m`, or the
// same through an inline such as curpsinfo) is compiled by inlining the translator's expression
// for that member with the translator's parameter standing for the input `e`; the result has the
// type of the member in the output struct. Translators are looked up by output struct and by an
// input type compatible with the operand (dt_xlator_lookup). A translator from the D library is
// checked member by member when first used, so that the library costs nothing until then.
// A library translator may define the fields of a struct-valued member one by one
// (`pr_start.tv_sec = ...;`), which D has no struct value to assign at once; then
// `xlate<T *>(e)->m.field` is that field's expression (the member as a whole has no value).
// Messages are libdtrace's (dt_parser.c, dt_xlator.c).

import type * as A from './ast.js';
import { DifoGen, type Val, err } from './codegen.js';
import { assignable, narrow, sameType } from './typed-expr.js';
import { isArgsReference, translatedArg } from './probe-args.js';
import { typeName, TRANSLATED_POINTER_TYPE, TRANSLATED_TYPE, type DType, type StructDef } from './types.js';

export interface Translator {
  def: A.TranslatorDefinition;
  /** From a D library file: types resolved and members checked on first use. */
  library: boolean;
  /** The output type as written (a struct or union type, maybe a typedef of one). */
  output?: DType & { kind: 'struct' };
  input?: DType;
  members: Map<string, A.TranslatorMember>;
  /** Members whose definitions have been type-checked. */
  checked: Set<string>;
}

/** The translators of a program (and of the D library loaded before it), in definition order. */
export interface TranslatorSet {
  readonly list: Translator[];
}

function translators(g: DifoGen): TranslatorSet {
  return g.cg.types.translators;
}

/** A translator definition: checked at once, unless it comes from the D library. */
export function defineTranslator(g: DifoGen, def: A.TranslatorDefinition, library = false): void {
  const members = new Map<string, A.TranslatorMember>();
  for (const m of def.members) members.set(m.name, m);
  const xl: Translator = { def, library, members, checked: new Set() };
  if (!library) {
    // Field-by-field members are the library's own; D's grammar has no such member.
    const dotted = def.members.find((m) => m.name.includes('.'));
    if (dotted) throw err('D_SYNTAX', 'syntax error near "."', dotted);
    resolveTypes(g, xl);
    // The D library's translators count too (dt_xlator_lookup sees them all).
    const dup = translators(g).list.find((o) => resolvedQuietly(g, o) && o.output!.def === xl.output!.def && sameType(o.input!, xl.input!));
    if (dup) {
      throw err('D_XLATE_REDECL', `translator from ${typeName(xl.input!)} to ${typeName(xl.output!)} has already been declared`, def.end);
    }
    for (const m of def.members) checkMember(g, xl, m);
  }
  translators(g).list.push(xl);
}

/** A library translator's types resolved, or false when this system cannot resolve them. */
function resolvedQuietly(g: DifoGen, xl: Translator): boolean {
  if (xl.output) return true;
  try {
    resolveTypes(g, xl);
    return true;
  } catch {
    return false;
  }
}

/** Resolve a translator's output and input types (D_XLATE_SOU when the output is not a struct). */
function resolveTypes(g: DifoGen, xl: Translator): void {
  if (xl.output) return;
  const types = g.cg.types;
  const out = types.resolve(xl.def.output.type);
  if (out.kind === 'struct' && !types.complete(out.def)) {
    throw err('D_XLATE_SOU', `incomplete struct/union/enum ${typeName(out)}`, xl.def.end);
  }
  if (out.kind !== 'struct') throw err('D_XLATE_SOU', 'translator output type must be a struct or union', xl.def.end);
  xl.input = types.resolve(xl.def.input.type);
  xl.output = out;
}

/** Type-check one member definition against the output struct (D_XLATE_MEMB, D_XLATE_INCOMPAT). */
function checkMember(g: DifoGen, xl: Translator, m: A.TranslatorMember): void {
  if (xl.checked.has(m.name)) return;
  const out = xl.output!;
  const info = memberInfo(g, out, m.name);
  if (!info) throw err('D_XLATE_MEMB', `translator member ${m.name} is not a member of ${typeName(out)}`, xl.def.end);
  // The parameter stands for a value of the input type: `(IN)0`, or `*(IN *)0` for a struct
  // or union taken by value (which no cast of 0 gives). The code is only type-checked.
  const zero: A.Expression = { kind: 'IntegerLiteral', ...at(m), value: 0n, text: '0', suffix: '', decimal: true, isChar: false };
  const byValue = xl.input!.kind === 'struct';
  const input: A.Expression = byValue ? {
    kind: 'Unary', ...at(m), op: '*',
    operand: { kind: 'Cast', ...at(m), type: { kind: 'TypeName', ...at(m), type: { kind: 'PointerType', ...at(m), to: xl.def.input.type, qualifiers: [] } }, operand: zero },
  } : zero;
  const scratch = new DifoGen(g.cg, g.opts);
  const value = byValue ? substitute(m.value, new Map([[xl.def.param, input]])) as A.Expression : inputBound(xl, m.value, zero);
  const v = scratch.expr(value);
  if (!assignable(scratch, info.type, v, value)) {
    throw err('D_XLATE_INCOMPAT', `translator member ${m.name} definition uses incompatible types: "${typeName(info.type)}" = "${typeName(v.type)}"`, xl.def.end);
  }
  xl.checked.add(m.name);
}

/** The member `name` (or `member.field`) of a struct type, with its type. */
function memberInfo(g: DifoGen, out: DType & { kind: 'struct' }, name: string): { type: DType } | undefined {
  let type: DType = out;
  for (const part of name.split('.')) {
    const def = type.kind === 'struct' ? g.cg.types.complete(type.def) : undefined;
    const info = def ? g.cg.types.member(def, part) : undefined;
    if (!info) return undefined;
    type = info.type;
  }
  return { type };
}

/** The xlate expression an operand stands for: itself, or the value of an inline naming one. */
export function xlateOf(g: DifoGen, e: A.Expression, depth = 0): A.Xlate | undefined {
  if (e.kind === 'Xlate') return e;
  if (e.kind === 'Index' && isArgsReference(e)) return translatedArg(g, e);
  if (e.kind === 'Index' && depth <= 64) {
    const inl = inlineArrayValue(g, e);
    return inl ? xlateOf(g, inl.value, depth + 1) : undefined;
  }
  if (depth > 64 || e.kind !== 'Identifier' || e.module !== undefined || g.cg.global(e.name)) return undefined;
  const inl = g.cg.types.inlines.get(e.name);
  return inl ? xlateOf(g, inl.value, depth + 1) : undefined;
}

/** The translator an xlate expression uses, and the output type it names (T or T *). */
function lookup(g: DifoGen, x: A.Xlate): { xl: Translator; target: DType } {
  const types = g.cg.types;
  const target = types.resolve(x.type.type);
  const out = target.kind === 'pointer' ? types.pointee(target) : target;
  const scratch = new DifoGen(g.cg, g.opts);
  const src = scratch.expr(x.operand);
  for (const xl of translators(g).list) {
    if (xl.library) resolveTypes(g, xl);
    if (out?.kind !== 'struct' || xl.output!.def !== sameDef(g, out.def)) continue;
    if (sameType(xl.input!, src.type) || assignable(scratch, xl.input!, src, x.operand)) return { xl, target };
  }
  throw err('D_XLATE_NONE', `cannot translate from "${typeName(src.type)}" to "${typeName(target)}"`, x);
}

function sameDef(g: DifoGen, def: StructDef): StructDef {
  return g.cg.types.complete(def) ?? def;
}

/** `xlate<T *>(e)->m`, `xlate<T>(e).m` (also through inlines); undefined for other members. */
export function translatedMember(g: DifoGen, e: A.Member): Val | undefined {
  // `(*xlate<T *>(e)).m` is `xlate<T *>(e)->m`.
  if (!e.arrow && e.object.kind === 'Unary' && e.object.op === '*' && xlateOf(g, e.object.operand))
    return translatedMember(g, { ...e, object: e.object.operand, arrow: true });
  // `xlate<T *>(e)->m.field`, of a member defined field by field; other `.field`s are of a
  // member's value (the inner reference is compiled as the object, as usual).
  if (!e.arrow && e.object.kind === 'Member') {
    const outer = e.object;
    const x = xlateOf(g, outer.object);
    if (!x) return undefined;
    const { xl, target } = lookup(g, x);
    const m = xl.members.get(`${outer.member}.${e.member}`);
    return m ? memberValue(g, xl, target, x, m, outer) : undefined;
  }
  const x = xlateOf(g, e.object);
  if (!x) return undefined;
  const { xl, target } = lookup(g, x);
  const m = xl.members.get(e.member);
  if (!m) {
    const error = err('D_XLATE_NOCONV', `translator does not define conversion for member: ${e.member}`, e);
    const fields = [...xl.members.keys()].filter((k) => k.startsWith(`${e.member}.`));
    if (fields.length > 0) error.hint = `${typeName(xl.output!)} member ${e.member} is translated field by field: use ${fields.join(' or ')}`;
    // The D library leaves out what this kernel cannot give (see lib/dtrace/procfs.d, io.d).
    else if (xl.library) error.hint = `${typeName(xl.output!)} member ${e.member} is not provided on this system`;
    throw error;
  }
  return memberValue(g, xl, target, x, m, e);
}

/** A translator member's (or field's) value, `ref` being the member reference of the xlate. */
function memberValue(g: DifoGen, xl: Translator, target: DType, x: A.Xlate, m: A.TranslatorMember, ref: A.Member): Val {
  if (ref.arrow && target.kind !== 'pointer') throw err('D_OP_PTR', 'operator -> must be applied to a pointer', ref);
  if (!ref.arrow && target.kind === 'pointer') {
    throw err('D_OP_SOU', `operator . cannot be applied to type "${typeName(target)}"; must be applied to a struct or union`, ref);
  }
  checkMember(g, xl, m);
  const info = memberInfo(g, xl.output!, m.name)!;
  const v = g.expr(inputBound(xl, m.value, x.operand));
  return convert(g, v, info.type, ref);
}

/**
 * An xlate used other than in a member reference: DTrace's dynamic translated type, which each
 * use refuses in its own words (the operand is still checked; the value is never computed).
 */
export function translatedValue(g: DifoGen, x: A.Xlate): Val {
  const { target } = lookup(g, x);
  return { reg: 0, type: target.kind === 'pointer' ? TRANSLATED_POINTER_TYPE : TRANSLATED_TYPE };
}

/** Check `inline T *name = xlate<T *>(e);` as dt_cook_inline does. True when `value` is an xlate. */
export function checkTranslatedInline(g: DifoGen, name: string, type: DType, value: A.Expression): boolean {
  const x = xlateOf(g, value);
  if (!x) return false;
  const { xl } = lookup(g, x);
  const left = type.kind === 'pointer' ? g.cg.types.pointee(type) : type;
  if (left?.kind !== 'struct' || sameDef(g, left.def) !== xl.output!.def) {
    throw err('D_OP_INCOMPAT', `inline ${name} definition uses incompatible types: "${left ? typeName(left) : typeName(type)}" = "${typeName(xl.output!)}"`, value);
  }
  return true;
}

/** A member's expression with the translator's parameter replaced by `(IN) input`. */
function inputBound(xl: Translator, value: A.Expression, input: A.Expression): A.Expression {
  const bound: A.Expression = { kind: 'Cast', ...at(input), type: xl.def.input, operand: input };
  return substitute(value, new Map([[xl.def.param, bound]])) as A.Expression;
}

/**
 * `name[k1, ...]` of an inline with a tuple signature (`inline fileinfo_t fds[int fd] = ...`):
 * its expression with each parameter replaced by `(T) key`; undefined for other indexes.
 */
export function inlineArrayValue(g: DifoGen, e: A.Index): { value: A.Expression; type: DType } | undefined {
  if (e.base.kind !== 'Identifier' || e.base.module !== undefined || g.cg.global(e.base.name)) return undefined;
  const inl = g.cg.types.inlineArrays.get(e.base.name);
  if (!inl) return undefined;
  const n = inl.params.length;
  if (e.keys.length !== n)
    throw err('D_PROTO_LEN', `${e.base.name}[ ] prototype mismatch: ${e.keys.length} arg${e.keys.length === 1 ? '' : 's'} passed, ${n} expected`, e);
  const by = new Map(inl.params.map((p, i): [string, A.Expression] => {
    const k = e.keys[i];
    return [p.name, { kind: 'Cast', ...at(k), type: { kind: 'TypeName', ...at(k), type: p.type }, operand: k }];
  }));
  return { value: substitute(inl.value, by) as A.Expression, type: inl.type };
}

function substitute(node: unknown, by: ReadonlyMap<string, A.Expression>): unknown {
  if (Array.isArray(node)) return node.map((n) => substitute(n, by));
  if (node === null || typeof node !== 'object') return node;
  const n = node as { kind?: string; name?: string; module?: string };
  if (n.kind === 'Identifier' && n.module === undefined && by.has(n.name!)) return by.get(n.name!);
  if (n.kind === 'TypeName') return node; // types hold no references to the parameter
  const copy: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) copy[k] = substitute(v, by);
  return copy;
}

/** The member's value converted to the member's type, as an assignment to it would be. */
function convert(g: DifoGen, v: Val, to: DType, at: A.Expression): Val {
  if (to.kind === 'int' && v.type.kind === 'int') narrow(g, v.reg, to, at);
  // A string given to a char array member (pr_psargs = "<unknown>") stays a string: what follows
  // its NUL is not the member's, and read as char[N] it would show whatever lies beyond.
  if (to.kind === 'array' && v.type.kind === 'string') return v;
  return { reg: v.reg, type: to };
}

function at(p: A.Position): A.Position {
  const q: A.Position = { line: p.line, column: p.column };
  if (p.file !== undefined) q.file = p.file;
  return q;
}
