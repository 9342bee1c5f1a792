// D variables beyond global scalars: thread-locals (self->x), clause-locals (this->x), global and
// thread-local associative arrays (a[k1, k2], self->a[k]), and explicit variable declarations
// (`int x;`, `self int x;`, `this string s;`, `int a[string, int];`).
//
// Namespaces follow libdtrace: global scalars and global arrays share one id space (the code
// generator's global ids), thread-local scalars and arrays share another, clause-locals a third;
// each starts at DIF_VAR_OTHER_UBASE. A clause-local is one variable for the whole program, so the
// clauses of one probe firing see the same this->x. A variable takes the type of its first
// assignment or its declaration; reading one before either is a compile error, as in DTrace.
//
// DIF: LDTS/STTS, LDLS/STLS for scalars; keys on the tuple stack, then LDGAA/STGAA or
// LDTAA/STTAA for arrays. Assigning 0 to a thread-local or an array element deletes it (the
// kernel side does that); reading a missing one gives 0.

import * as D from '../dif/constants.js';
import { ACTION_PROTOTYPES, SUBROUTINE_BY_NAME } from '../dif/subroutines.js';
import { AGG_FUNCTION_NAMES } from './aggregations.js';
import { encodeLdv, encodeR, encodeStv } from '../dif/builder.js';
import type * as A from './ast.js';
import { type CodeGenerator, type DifoGen, type Val, checkTuple, err, registerNeed, resolveType } from './codegen.js';
import { LONG, TRANSLATED_TYPE, difType, isDynamicType, isScalar, typeName, type DType } from './types.js';
import { isNullConstant, narrow, refuseArrayTarget, updateStep } from './typed-expr.js';
import { isStringCompatible } from './ctypes.js';

type Scope = 'global' | 'thread' | 'local';

interface Variable {
  name: string;
  id: number;
  scope: Scope;
  array: boolean;
  /** Value type; null until the first assignment or declaration. */
  type: DType | null;
  /** Arrays: the key types, from the declaration or the first reference. */
  keys: DType[] | null;
}

type DynamicTarget = A.ThreadLocal | A.ClauseLocal | A.Index;

/** Identifiers that name built-in arrays, indexed by someone else's code. */
const BUILTIN_ARRAYS = new Set(['args', 'regs', 'uregs']);

const SCOPE_NUMBER: Record<Scope, number> = {
  global: D.DIFV_SCOPE_GLOBAL, thread: D.DIFV_SCOPE_THREAD, local: D.DIFV_SCOPE_LOCAL,
};

export class Variables {
  private arrays = new Map<string, Variable>(); // global associative arrays
  private tls = new Map<string, Variable>();
  private locals = new Map<string, Variable>();
  /** Globals a declaration named (not those a clause merely assigned). */
  private declaredGlobals = new Set<string>();
  private nextTls = D.DIF_VAR_OTHER_UBASE;
  private nextLocal = D.DIF_VAR_OTHER_UBASE;

  constructor(private cg: CodeGenerator) {}

  /** Is this expression a variable this module handles (as an operand or an lvalue)? */
  handles(e: A.Expression): e is DynamicTarget {
    if (e.kind === 'ThreadLocal' || e.kind === 'ClauseLocal') return true;
    if (e.kind !== 'Index') return false;
    if (e.base.kind === 'ThreadLocal') return !this.tls.get(e.base.name) || this.tls.get(e.base.name)!.array;
    if (e.base.kind !== 'Identifier' || e.base.module !== undefined || BUILTIN_ARRAYS.has(e.base.name)) return false;
    // A typed global scalar indexed is pointer arithmetic, not an associative array (as in DTrace).
    return this.cg.global(e.base.name) === undefined;
  }

  /**
   * `this->a[k]`: clause-locals are never associative arrays; indexing one is pointer or array
   * indexing, so indexing one with no type yet is D_ARR_LOCAL.
   */
  checkLocalIndex(e: A.Index): void {
    if (e.base.kind !== 'ClauseLocal') return;
    if (!this.locals.get(e.base.name)?.type)
      throw err('D_ARR_LOCAL', `local variables may not be used as associative arrays: ${e.base.name}`, e);
  }

  /** A global scalar reference must not name an associative array. */
  checkScalarName(name: string, at: A.Position): void {
    if (this.arrays.has(name))
      throw err('D_IDENT_BADREF', `associative array '${name}' may not be referenced as scalar`, at);
  }

  // ---------------------------------------------------------------- expressions

  /** The value of a variable or an array element. */
  load(g: DifoGen, e: DynamicTarget): Val {
    const v = this.resolve(e, false);
    if (v.type === null) throw undefinedVariable(e, v);
    return this.emitLoad(g, e, v);
  }

  /** `target op= value`. */
  assign(g: DifoGen, e: A.Assignment & { target: DynamicTarget }): Val {
    const target = e.target;
    if (e.op === '=') {
      const val = g.expr(e.value);
      const v = this.resolve(target, true);
      if (val.type.kind === 'void') throw err('D_OP_INCOMPAT', `operands have incompatible types: "${v.type ? typeName(v.type) : 'void'}" = "void"`, e);
      if (val.type === TRANSLATED_TYPE) throw err('D_UNKNOWN', 'internal error -- no support for translated types yet', e);
      if (isDynamicType(val.type)) {
        const left = v.type ? typeName(v.type) : target.kind === 'Index' ? 'associative array' : 'scalar';
        throw err('D_OP_INCOMPAT', `operands have incompatible types: "${left}" = "${typeName(val.type)}"`, e);
      }
      // Structs, unions and arrays are copied into the variable by value, as strings are.
      const byRef = (t: DType) => t.kind === 'struct' || t.kind === 'array';
      // A string and a char pointer or array are compatible (dt_node_is_argcompat): a string
      // variable copies the characters, a char pointer takes the string's address.
      const strings = (to: DType, from: DType) => (to.kind === 'string' || to.kind === 'pointer') &&
        isStringCompatible(to, this.cg.types) && isStringCompatible(from, this.cg.types);
      refuseArrayTarget(v.type ?? val.type, e);
      if (v.type === null) v.type = val.type;
      else if (v.scope !== 'local' && v.type.kind === 'struct' && isNullConstant(e.value)) {
        // Assigning 0 to a struct- or union-valued dynamic variable deletes it, as for scalars.
        this.emitStore(g, target, v, val.reg);
        return { reg: val.reg, type: v.type };
      } else if (v.scope === 'local' && nullToString(v.type, e.value)) {
        // NULL or 0 given to a clause-local string, which DTrace accepts: a null string pointer,
        // equal to NULL and faulting when read, as in DTrace.
        this.emitStore(g, target, v, val.reg);
        return { reg: val.reg, type: v.type };
      } else if (!strings(v.type, val.type) &&
        (((v.type.kind === 'string') !== (val.type.kind === 'string') && !(v.scope !== 'local' && nullToString(v.type, e.value))) ||
        ((byRef(v.type) || byRef(val.type)) && !sameType(v.type, val.type))))
        throw err('D_OP_INCOMPAT', `operands have incompatible types: "${typeName(v.type)}" = "${typeName(val.type)}"`, e);
      this.emitStore(g, target, v, val.reg);
      return { reg: val.reg, type: v.type };
    }
    const v = this.resolve(target, false);
    if (v.type === null) throw undefinedVariable(target, v);
    // x op= y is x = x op y; array keys are evaluated twice, as DTrace does.
    const op = e.op.slice(0, -1) as A.BinaryOperator;
    const binary: A.Binary = { kind: 'Binary', op, written: e.op, left: target, right: e.value, line: e.line, column: e.column, file: e.file };
    const val = g.expr(binary);
    this.emitStore(g, target, v, val.reg);
    return { reg: val.reg, type: v.type };
  }

  /**
   * The type `sizeof(x)` sees: sizeof does not read its operand, so a variable not yet assigned
   * is created there, as an int64_t (its keys' types its signature), as DTrace creates it.
   */
  sizeofType(g: DifoGen, e: DynamicTarget): DType {
    const v = this.resolve(e, true);
    if (e.kind === 'Index') for (const k of this.keys(g, e, v)) g.release(k.reg);
    if (v.type === null) v.type = LONG;
    return v.type;
  }

  /** `++x`, `x++`, `--x`, `x--`: a variable never assigned starts as an int64_t 0. */
  update(g: DifoGen, e: A.Update & { operand: DynamicTarget }): Val {
    const target = e.operand;
    const v = this.resolve(target, true);
    if (v.type === null) v.type = LONG;
    if (!isScalar(v.type))
      throw err('D_OP_SCALAR', `operator ${e.op} requires operand of scalar type`, e);
    const old = this.emitLoad(g, target, v);
    const one = g.alloc(e);
    g.b.setx(updateStep(g, v.type), one);
    const nv = g.alloc(e);
    g.b.emit(encodeR(e.op === '++' ? D.DIF_OP_ADD : D.DIF_OP_SUB, old.reg, one, nv));
    g.release(one);
    this.emitStore(g, target, v, nv);
    if (e.prefix) {
      g.release(old.reg);
      return { reg: nv, type: v.type };
    }
    g.release(nv);
    return old;
  }

  // ---------------------------------------------------------------- declarations

  /** Variable declarations at program level: storage null (global), self or this. */
  declare(d: A.Declaration, program = false): void {
    const scope: Scope = d.storage === 'self' ? 'thread' : d.storage === 'this' ? 'local' : 'global';
    for (const decl of d.declarators) {
      const t = decl.type;
      const at = decl as unknown as A.Expression;
      // (The library is not asked about the kernel's type names: its variables are few and known.)
      if (program && this.cg.types.isTypeName(decl.name))
        throw err('D_DECL_IDRED', `typedef identifier redeclared: ${decl.name}`, decl);
      if (scope === 'global') {
        this.refuseBuiltinName(decl.name, t, decl);
        this.declaredGlobals.add(decl.name);
      }
      if (t.kind === 'ArrayType' && t.keys) {
        if (scope === 'local') throw err('D_DECL_LOCASSC', `associative arrays may not be declared as local variables: ${decl.name}`, decl);
        const type = resolveType(t.of, at);
        if (type.kind === 'void') throw err('D_DECL_VOIDOBJ', `cannot have void object: ${decl.name}`, decl);
        const keys = this.cg.types.arrayKeys(t);
        const v = this.variable(scope, decl.name, true, decl);
        this.redeclared(v, type, decl, 'associative array');
        if (v.keys && !sameTypes(v.keys, keys))
          throw err('D_DECL_IDRED', `identifier redeclared: ${decl.name}`, decl);
        v.type = type;
        v.keys = keys;
        continue;
      }
      // A global scalar array (int a[10]) is held by reference, as global structs are.
      if (t.kind === 'FunctionType' || (t.kind === 'ArrayType' && scope !== 'global'))
        throw err('D_UNSUPPORTED', `declarations of ${t.kind === 'ArrayType' ? 'scalar arrays' : 'functions'} are not supported yet`, decl);
      const type = resolveType(t, at);
      if (type.kind === 'void') throw err('D_DECL_VOIDOBJ', `cannot have void object: ${decl.name}`, decl);
      if (scope === 'global') {
        this.checkScalarName(decl.name, decl);
        const g = this.cg.global(decl.name);
        if (g && !sameType(g.type, type))
          throw err('D_DECL_IDRED', `identifier redeclared: ${decl.name}\n\t current: scalar ${typeName(type)}\n\tprevious: scalar ${typeName(g.type)}`, decl);
        this.cg.declareGlobal(decl.name, type);
        continue;
      }
      const v = this.variable(scope, decl.name, false, decl);
      this.redeclared(v, type, decl, 'scalar');
      v.type = type;
    }
  }

  /**
   * A global may not take the name of something D defines itself: a built-in variable, a
   * subroutine, an action or an aggregating function (D_DECL_IDRED), nor that of a D library
   * inline of another type. Names D 1.1 added are free under an older `-x version`.
   */
  private refuseBuiltinName(name: string, t: A.TypeExpression, decl: A.Position): void {
    if (isBuiltinName(name) && !(D_1_1_NAMES.has(name) && olderThan(this.cg.option('version'), [1, 1])))
      throw err('D_DECL_IDRED', `built-in identifier redeclared: ${name}`, decl);
    // An inline or an enumerator is a global scalar of its type: an array of its name, or a
    // scalar of another type, redeclares it (an inline of the same type may be declared).
    const inline = this.cg.types.inlines.get(name);
    const enumerator = this.cg.types.enumerators.get(name);
    const previous = inline ? { kind: 'scalar', type: inline.type } : enumerator ? { kind: 'enumerator', type: enumerator.type } : undefined;
    if (!previous) return;
    const array = t.kind === 'ArrayType' && t.keys !== null;
    const type = resolveType(t.kind === 'ArrayType' && t.keys ? t.of : t, decl as unknown as A.Expression);
    if (array || enumerator || !sameType(type, previous.type))
      throw err('D_DECL_IDRED', `identifier redeclared: ${name}\n\t current: ${array ? 'associative array' : 'scalar'} ${typeName(type)}\n\tprevious: ${previous.kind} ${typeName(previous.type)}`, decl);
  }

  /** Did the program (or the library) declare a global variable of this name? */
  isDeclaredGlobal(name: string): boolean {
    return this.declaredGlobals.has(name);
  }

  /** DTrace names each side by its kind and type: "scalar int", "associative array int". */
  private redeclared(v: Variable, type: DType, at: A.Position, kind: string): void {
    if (v.type && !sameType(v.type, type)) {
      const was = v.keys ? 'associative array' : 'scalar';
      throw err('D_DECL_IDRED', `identifier redeclared: ${v.name}\n\t current: ${kind} ${typeName(type)}\n\tprevious: ${was} ${typeName(v.type)}`, at);
    }
  }

  // ---------------------------------------------------------------- internals

  /** The variable a target names, created (untyped) when `create` and unknown. */
  private resolve(e: DynamicTarget, create: boolean): Variable {
    if (e.kind === 'Index') {
      const base = e.base as A.Identifier | A.ThreadLocal;
      const scope: Scope = base.kind === 'ThreadLocal' ? 'thread' : 'global';
      const known = this.table(scope).get(base.name);
      if (!known && !create) throw undefinedVariable(e, { name: base.name, scope, array: true });
      const v = known ?? this.variable(scope, base.name, true, e);
      if (!v.array) throw err('D_IDENT_BADREF', `scalar '${v.name}' may not be referenced as associative array`, e);
      return v;
    }
    const scope: Scope = e.kind === 'ThreadLocal' ? 'thread' : 'local';
    const v = this.table(scope).get(e.name) ?? this.variable(scope, e.name, false, e);
    if (v.array) throw err('D_IDENT_BADREF', `associative array '${v.name}' may not be referenced as scalar`, e);
    return v;
  }

  /**
   * Spill or fill a register through a clause-local no D name can reach (`%spill` and its depth:
   * one per nesting level of spilled operands), held as a raw 64-bit value.
   */
  spill(g: DifoGen, depth: number, reg: number, fill: boolean, at: A.Position): void {
    const name = `%spill${depth}`;
    const v = this.locals.get(name) ?? this.variable('local', name, false, at);
    v.type = LONG;
    this.entry(g, v, fill ? D.DIFV_F_REF : D.DIFV_F_MOD);
    g.b.emit(fill ? encodeLdv(D.DIF_OP_LDLS, v.id, reg) : encodeStv(D.DIF_OP_STLS, v.id, reg));
  }

  private table(scope: Scope): Map<string, Variable> {
    return scope === 'thread' ? this.tls : scope === 'local' ? this.locals : this.arrays;
  }

  private variable(scope: Scope, name: string, array: boolean, at: A.Position): Variable {
    const table = this.table(scope);
    const known = table.get(name);
    if (known) {
      if (known.array !== array)
        throw err('D_IDENT_BADREF', `${known.array ? 'associative array' : 'scalar'} '${name}' may not be referenced as ${array ? 'associative array' : 'scalar'}`, at);
      return known;
    }
    if (scope === 'global' && this.cg.global(name))
      throw err('D_IDENT_BADREF', `scalar '${name}' may not be referenced as associative array`, at);
    let id: number;
    if (scope === 'global') id = this.cg.allocGlobalId();
    else if (scope === 'thread') id = this.nextTls++;
    else id = this.nextLocal++;
    if (id > D.DIF_VAR_OTHER_MAX)
      throw err('D_ID_OFLOW', `cannot create ${name}: limit on number of ${scope === 'global' ? 'global' : scope === 'thread' ? 'thread local' : 'clause local'} variables exceeded`, at);
    const v: Variable = { name, id, scope, array, type: null, keys: null };
    table.set(name, v);
    return v;
  }

  private entry(g: DifoGen, v: Variable, flags: number): void {
    g.b.variable({
      name: v.name, id: v.id, kind: v.array ? D.DIFV_KIND_ARRAY : D.DIFV_KIND_SCALAR,
      scope: SCOPE_NUMBER[v.scope], flags, type: difType(v.type!, g.opts.strsize),
    });
  }

  private emitLoad(g: DifoGen, e: DynamicTarget, v: Variable): Val {
    this.entry(g, v, D.DIFV_F_REF);
    if (e.kind === 'Index') {
      this.pushKeys(g, e, v);
      const rd = g.alloc(e);
      g.b.emit(encodeLdv(v.scope === 'thread' ? D.DIF_OP_LDTAA : D.DIF_OP_LDGAA, v.id, rd));
      g.flushTuple();
      return { reg: rd, type: v.type! };
    }
    const rd = g.alloc(e);
    g.b.emit(encodeLdv(v.scope === 'thread' ? D.DIF_OP_LDTS : D.DIF_OP_LDLS, v.id, rd));
    return { reg: rd, type: v.type! };
  }

  private emitStore(g: DifoGen, e: DynamicTarget, v: Variable, reg: number): void {
    this.entry(g, v, D.DIFV_F_MOD);
    // C's conversion on assignment: a narrow integer variable holds its value sign- or
    // zero-extended, so its loads need not (self->c = -3 for an unsigned char is 253).
    if (v.type?.kind === 'int') narrow(g, reg, v.type, e);
    if (e.kind === 'Index') {
      this.pushKeys(g, e, v);
      g.b.emit(encodeStv(v.scope === 'thread' ? D.DIF_OP_STTAA : D.DIF_OP_STGAA, v.id, reg));
      g.flushTuple();
      return;
    }
    g.b.emit(encodeStv(v.scope === 'thread' ? D.DIF_OP_STTS : D.DIF_OP_STLS, v.id, reg));
  }

  /**
   * Push an array reference's keys on the tuple stack. Keys that touch no tuple themselves (no
   * array or call inside) are pushed one by one as computed, so a key of many values needs no
   * more registers than one of them; others are all computed first.
   */
  private pushKeys(g: DifoGen, e: A.Index, v: Variable): void {
    if (e.keys.every((k) => registerNeed(k) !== null)) {
      this.keys(g, e, v, (val) => {
        g.pushTuple([val], e);
        g.release(val.reg);
      });
      return;
    }
    const keys = this.keys(g, e, v);
    g.pushTuple(keys, e);
    for (const k of keys) g.release(k.reg);
  }

  /** Evaluate an array reference's keys, checking them against the array's key signature; each to `each` when given. */
  private keys(g: DifoGen, e: A.Index, v: Variable, each?: (val: Val) => void): Val[] {
    // libdtrace names the array by its identifier alone: a thread-local's is x[ ], not self->x[ ].
    const shown = v.name;
    checkTuple(g.opts, e.keys.length);
    // The device's tuple stack holds DIF_DTR_STACK entries, what the default tregs allows: a
    // larger -x tregs lets an aggregation have more keys, not an array.
    if (e.keys.length > D.DIF_DTR_STACK)
      throw err('D_ARR_BADREF', `${shown}[ ] may not be referenced with more than ${D.DIF_DTR_STACK} keys`, e.base);
    if (v.keys && v.keys.length !== e.keys.length) {
      const n = e.keys.length;
      throw err('D_PROTO_LEN', `${shown}[ ] prototype mismatch: ${n} key${n === 1 ? ' ' : 's '}passed, ${v.keys.length} expected`, e.base);
    }
    // Errors about keys name the array's line, as libdtrace reports them on the variable's node.
    const vals = e.keys.map((k, i) => {
      const val = g.expr(k);
      // Against a known signature a void key is an incompatible one.
      if (v.keys && (val.type.kind === 'void' || (v.keys[i].kind === 'string') !== (val.type.kind === 'string')))
        throw err('D_PROTO_ARG', `${shown}[ ] key #${i + 1} is incompatible with prototype:\n\tprototype: ${typeName(v.keys[i])}\n\t      key: ${typeName(val.type)}`, e.base);
      if (val.type.kind === 'void')
        throw err('D_KEY_TYPE', `void expression may not be used as associative array index: key #${i + 1}`, e.base);
      each?.(val);
      return val;
    });
    if (!v.keys) v.keys = vals.map((k) => k.type);
    return vals;
  }
}

function undefinedVariable(e: A.Position & { kind: string }, v: { name: string; scope: Scope; array: boolean }) {
  const prefix = v.scope === 'thread' ? 'self->' : v.scope === 'local' ? 'this->' : '';
  const error = err('D_VAR_UNDEF', `${prefix}${v.name} has not yet been declared or assigned`, e);
  // fds[] comes from the D library's io.d: only a program compiled without it gets here.
  if (v.scope === 'global' && v.name === 'fds')
    error.hint = 'fds[] (fileinfo_t fds[int]) is declared by the D library\'s io.d, which was not loaded';
  return error;
}

function sameType(a: DType, b: DType): boolean {
  return typeName(a) === typeName(b) && a.kind === b.kind;
}

function sameTypes(a: DType[], b: DType[]): boolean {
  return a.length === b.length && a.every((t, i) => sameType(t, b[i]));
}

/** Declarations this module handles: variables (not typedefs, tags alone, or externs). */
export function isVariableDeclaration(d: A.Declaration): boolean {
  return (d.storage === null || d.storage === 'self' || d.storage === 'this') && d.declarators.length > 0;
}

/**
 * `self->name = 0` or `names[k] = 0` where the variable holds strings: D's string is a char array,
 * so the null pointer constant (0 or NULL) may be assigned to it as to any pointer
 * (dt_node_is_ptrcompat), and for a dynamic variable that frees it -- the usual way to clear a
 * string variable. (Clause-local and global strings, which it would not free, keep refusing it.)
 */
/** "" where a NULL was written. */
function nullToString(t: DType, value: A.Expression): boolean {
  return t.kind === 'string' && isNullConstant(value);
}

/** The names D defines itself (compiler/ctypes.ts's BUILTIN_IDENTS holds the variables and library names). */
function isBuiltinName(name: string): boolean {
  return D.DIF_VAR_BY_NAME.has(name) || ACTION_PROTOTYPES.has(name) || AGG_FUNCTION_NAMES.has(name)
    || (SUBROUTINE_BY_NAME.has(name) && !name.startsWith('<'));
}

/** Subroutines and actions D 1.1 added (a program for D 1.0 may use the names). */
const D_1_1_NAMES = new Set(['strstr', 'strchr', 'strrchr', 'strtok', 'substr', 'index', 'freopen']);

/** Is the -x version given older than major.minor? (Unset: this compiler's, which is not.) */
function olderThan(version: string | undefined, [major, minor]: [number, number]): boolean {
  const m = version ? /^(\d+)\.(\d+)/.exec(version) : null;
  return m !== null && (Number(m[1]) < major || (Number(m[1]) === major && Number(m[2]) < minor));
}
