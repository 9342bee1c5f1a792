// The C side of D's type system: built-in and kernel types, script declarations (typedef,
// struct/union with bit-fields, enum), type names as written in casts/sizeof/offsetof, struct
// layout, and the constant expressions declarations need (array sizes, bit-field widths, enum
// values).
//
// Lookup order follows libdtrace: the program's own definitions (its "D" container) first, then
// D's built-in typedefs, then the kernel's BTF (the Linux counterpart of CTF). A struct, union or
// enum tag that is found nowhere becomes a forward declaration, as DTrace does, so that sizeof or
// `->` on it fails with DTrace's own diagnostics.

import type * as A from './ast.js';
import { DtraceError } from './errors.js';
import type { TranslatorSet } from './translators.js';
import { canonicalBuiltinType } from './parser.js';
import {
  INT, LONG, STRING, ULONG, VOID, intType, isInteger, pointerName, pointerTo, typeName,
  type DType, type EnumDef, type MemberInfo, type StructDef,
} from './types.js';
import { type Btf, loadKernelBtf, loadModuleBtf } from '../btf/btf.js';
import { optionDefault } from '../options.js';
import { DIF_VAR_BY_NAME } from '../dif/constants.js';

type At = { line: number; column: number; file?: string; dnLine?: number };

/** A tag as named with its module (`can\`x`), the scoping mark the parser may keep dropped. */
function scopedTag(module: string | undefined, tag: string): string {
  const m = module?.replace(/^`+/, '');
  return m ? `${m}\`${tag}` : tag;
}

function fail(tag: string, message: string, at: At): never {
  throw new DtraceError(tag, message, { line: at.dnLine ?? at.line, column: at.column, file: at.file });
}

/** The C base types D knows by keyword (the parser normalises the spelling). */
const BASE_TYPES: Record<string, DType> = {
  char: intType(1, true, 'char'), 'signed char': intType(1, true, 'signed char'),
  'unsigned char': intType(1, false, 'unsigned char'), short: intType(2, true, 'short'),
  'unsigned short': intType(2, false, 'unsigned short'), int: INT,
  'unsigned int': intType(4, false, 'unsigned int'), long: intType(8, true, 'long'),
  'unsigned long': intType(8, false, 'unsigned long'), 'long long': intType(8, true, 'long long'),
  'unsigned long long': intType(8, false, 'unsigned long long'),
  float: { kind: 'float', size: 4, name: 'float' }, double: { kind: 'float', size: 8, name: 'double' },
  'long double': { kind: 'float', size: 16, name: 'long double' },
  void: VOID, string: STRING,
};

/** Does a scoping module (perhaps with the parser's leading mark kept) name D's own types? */
function isDModule(module: string | undefined): boolean {
  return module !== undefined && module.replace(/^`+/, '') === 'D';
}

/** D's built-in typedefs (LP64), and a few the Solaris-derived D library always had. */
const D_TYPEDEFS: Record<string, DType> = {
  int8_t: intType(1, true, 'int8_t'), uint8_t: intType(1, false, 'uint8_t'),
  int16_t: intType(2, true, 'int16_t'), uint16_t: intType(2, false, 'uint16_t'),
  int32_t: intType(4, true, 'int32_t'), uint32_t: intType(4, false, 'uint32_t'),
  int64_t: LONG, uint64_t: ULONG,
  intptr_t: intType(8, true, 'intptr_t'), uintptr_t: intType(8, false, 'uintptr_t'),
  size_t: intType(8, false, 'size_t'), ssize_t: intType(8, true, 'ssize_t'),
  ptrdiff_t: intType(8, true, 'ptrdiff_t'),
  uchar_t: intType(1, false, 'uchar_t'), ushort_t: intType(2, false, 'ushort_t'),
  uint_t: intType(4, false, 'uint_t'), ulong_t: intType(8, false, 'ulong_t'),
  u_longlong_t: intType(8, false, 'u_longlong_t'), id_t: intType(4, true, 'id_t'),
  pid_t: intType(4, true, 'pid_t'), uid_t: intType(4, false, 'uid_t'), gid_t: intType(4, false, 'gid_t'),
  processorid_t: intType(4, true, 'processorid_t'), hrtime_t: intType(8, true, 'hrtime_t'),
  pri_t: intType(2, true, 'pri_t'),
};

export const SIZE_T = D_TYPEDEFS.size_t;
export const PTRDIFF_T = D_TYPEDEFS.ptrdiff_t;

/** An `inline` definition: its declared type and the expression it stands for. */
export interface InlineInfo {
  type: DType;
  value: A.Expression;
  /** The value when the expression is an integer constant (usable in declarations). */
  constant?: bigint;
}

/** `inline T name[T1 p1, ...] = expr;`: expr with the parameters standing for the keys of a use. */
export interface InlineArrayInfo {
  type: DType;
  params: { name: string; type: A.TypeExpression }[];
  value: A.Expression;
}

export interface TypeScopeOptions {
  /** The kernel's BTF, or undefined when it cannot be read (kernel types are then unknown). */
  kernel?: () => Btf | undefined;
}

function defaultKernel(): Btf | undefined {
  try {
    return loadKernelBtf();
  } catch {
    return undefined;
  }
}

export class TypeScope {
  private readonly typedefs = new Map<string, DType>();
  /** 'struct x' / 'union x' -> definition (complete or forward). */
  private readonly structs = new Map<string, StructDef & { memberList: MemberInfo[] }>();
  private readonly enums = new Map<string, EnumDef>();
  /** Enumerators of the program's enums, usable as integer constants. */
  readonly enumerators = new Map<string, { value: bigint; type: DType }>();
  readonly inlines = new Map<string, InlineInfo>();
  /**
   * Macro variables ($1, $target, ...) as the integer literals DTrace's lexer makes of them, so
   * that they are constants wherever one is needed (lquantize( ) limits, stack( ) depths, ...);
   * set by the code generator, which holds the arguments. Anything else is returned as it is.
   */
  macroLiteral?: (e: A.MacroVariable) => A.Expression;
  /** Inlines with a tuple signature, as DTrace's io.d defines fds[]. */
  readonly inlineArrays = new Map<string, InlineArrayInfo>();
  /** Translator definitions (translators.ts). */
  readonly translators: TranslatorSet = { list: [] };
  private readonly kernelTypes = new Map<string, Map<number, DType>>();
  /** Whether the program declared a global variable (scalar or array) of this name; set by the code generator. */
  isGlobal: (name: string) => boolean = () => false;
  private readonly defined = new WeakMap<A.TypeSpecifier, StructDef | EnumDef>();
  private readonly kernel: () => Btf | undefined;
  private kernelLoaded: Btf | undefined | null = null;

  constructor(opts: TypeScopeOptions = {}) {
    this.kernel = opts.kernel ?? defaultKernel;
  }

  private btf(): Btf | undefined {
    if (this.kernelLoaded === null) this.kernelLoaded = this.kernel();
    return this.kernelLoaded;
  }

  /** Is `name` a typedef name of the program or D's own (not asking the kernel's BTF)? */
  isDTypeName(name: string): boolean {
    return this.typedefs.has(name) || name in D_TYPEDEFS;
  }

  /** For the parser: is `name` a typedef name (program, D built-in, or kernel)? */
  isTypeName(name: string): boolean {
    if (this.isDTypeName(name)) return true;
    // A type scoped by its module: D`int, D`uint64_t (D's own types), vmlinux`uint32_t.
    const tick = name.lastIndexOf('`');
    if (tick > 0) {
      const module = name.slice(0, tick), base = name.slice(tick + 1);
      if (module === 'D') return base in BASE_TYPES || base in D_TYPEDEFS || this.typedefs.has(base);
      if (!/^[A-Za-z_]\w*$/.test(module) || !/^[A-Za-z_]\w*$/.test(base)) return false;
      if (module !== 'vmlinux' && module !== 'genunix' && module !== 'unix') return false;
      const kbtf = this.btf();
      return kbtf !== undefined && kbtf.find(base, 'typedef') !== undefined;
    }
    const btf = this.btf();
    return btf !== undefined && btf.find(name, 'typedef') !== undefined;
  }

  // ---- declarations

  /**
   * A top-level declaration. Returns true when it is fully handled here (typedefs and
   * struct/union/enum definitions without declarators); false when it declares variables,
   * which are the variables' code's business (its base type is defined here first).
   */
  declare(d: A.Declaration, program = false): boolean {
    this.resolveNamed(d.base); // defines the struct, union or enum the declaration carries
    if (d.storage === 'typedef') {
      for (const decl of d.declarators) {
        const t = this.resolve(decl.type);
        // The program's own text may not name a type anew, be it D's or the kernel's; a file it
        // includes (a cpp marker names it) may: its typedefs are the C scope's, where one of
        // those names (size_t in <stddef.h>, pid_t in <sys/types.h>) hides D's. The library is
        // not asked about the kernel's names (its typedefs are D's own).
        const taken = this.typedefs.has(decl.name) || (program && decl.file === undefined && this.isTypeName(decl.name));
        if (taken) fail('D_DECL_IDRED', `typedef redeclared: ${decl.name}`, decl);
        this.typedefs.set(decl.name, named(t, decl.name));
      }
      return true;
    }
    if (d.declarators.length === 0) {
      const s = d.base.specifier;
      if (s.kind !== 'StructType' && s.kind !== 'EnumType') fail('D_DECL_USELESS', 'useless declaration', d);
      return true;
    }
    const prototypes = d.declarators.every((x) => x.type.kind === 'FunctionType');
    if (d.storage === 'extern' || (prototypes && d.storage === null)) {
      // The type of something outside the program (a kernel variable, or a function a system
      // header prototypes, extern as in C whether it says so or not): it reserves no storage,
      // and `name reads the kernel's symbol.
      for (const decl of d.declarators) this.resolve(decl.type);
      return true;
    }
    return false;
  }

  /** `inline TYPE NAME = expr;` (the value is type-checked where it is compiled). */
  defineInline(def: A.InlineDefinition, isGlobal: (name: string) => boolean): void {
    const redefined = this.inlines.has(def.name) || this.inlineArrays.has(def.name) || this.enumerators.has(def.name) || isGlobal(def.name);
    if (def.type.kind === 'ArrayType' && def.type.keys) {
      if (redefined) fail('D_DECL_IDRED', `identifier redefined: ${def.name}\n\t current: inline definition\n\tprevious: array inline`, def);
      const params = def.type.keys.map((k) => {
        if (k.name === null) fail('D_DECL_ARRNULL', `inline declaration requires array tuple signature: ${def.name}`, def);
        this.resolve(k.type);
        return { name: k.name!, type: k.type };
      });
      const type = this.resolve(def.type.of);
      if (type.kind === 'void') fail('D_DECL_VOIDOBJ', `cannot declare void inline: ${def.name}`, def);
      this.inlineArrays.set(def.name, { type, params, value: def.value });
      return;
    }
    const t = this.resolve(def.type);
    if (redefined)
      fail('D_DECL_IDRED', `identifier redefined: ${def.name}\n\t current: inline definition\n\tprevious: ${this.enumerators.has(def.name) ? 'enumerator' : 'scalar'} ${this.inlines.has(def.name) || this.enumerators.has(def.name) ? 'inline' : ''}`, def);
    if (t.kind === 'void') fail('D_DECL_VOIDOBJ', `cannot declare void inline: ${def.name}`, def);
    if (t.kind === 'array' && t.count === 0)
      fail('D_DECL_ARRNULL', `inline declaration requires array tuple signature: ${def.name}`, def);
    if (t.kind === 'array') fail('D_DECL_ARRNULL', `inline declaration cannot be of scalar array type: ${def.name}`, def);
    if (t.kind === 'struct' && !t.def.complete)
      fail('D_DECL_INCOMPLETE', `incomplete struct/union/enum ${typeName(t)}: ${def.name}`, def);
    let constant: bigint | undefined;
    try {
      constant = isInteger(t) && t.kind !== 'pointer' ? this.constant(def.value) : undefined;
    } catch {
      constant = undefined;
    }
    this.inlines.set(def.name, { type: t, value: def.value, constant });
  }

  // ---- type expressions

  /** The D type of a type as written. */
  resolve(t: A.TypeExpression): DType {
    switch (t.kind) {
      case 'NamedType':
        return this.resolveNamed(t);
      case 'PointerType': {
        const to = this.resolve(t.to);
        if (to.kind === 'function') return { kind: 'pointer', name: 'function pointer', to };
        return pointerTo(to, userlandOf(t.to));
      }
      case 'ArrayType': {
        if (t.keys) fail('D_DECL_DYNOBJ', 'cannot declare array of associative arrays', t);
        const of = this.resolve(t.of);
        if (of.kind === 'void') fail('D_DECL_VOIDOBJ', 'cannot declare array of void', t);
        if (!t.size) return { kind: 'array', of, count: 0 };
        let n: bigint;
        try {
          n = this.constant(t.size);
        } catch (e) {
          if (e instanceof DtraceError && e.tag === 'D_NOTCONST')
            fail('D_DECL_ARRSUB', 'positive integral constant expression or tuple signature expected as array declaration subscript', t);
          throw e;
        }
        if (n <= 0n) fail('D_DECL_ARRSUB', 'positive integral constant expression or tuple signature expected as array declaration subscript', t);
        if (n > 0xffffffffn) fail('D_DECL_ARRBIG', 'array dimension too big', t);
        return { kind: 'array', of, count: Number(n) };
      }
      case 'FunctionType':
        this.prototype('function', t.params, t.varargs, t);
        return { kind: 'function', name: 'function' };
    }
  }

  /** An associative array's key types, checked as DTrace checks an array's prototype. */
  arrayKeys(t: A.ArrayType): DType[] {
    return this.prototype('array', t.keys ?? [], t.varargs ?? false, t);
  }

  /**
   * A prototype's parameter types, checked in order as dt_decl_prototype does: a function may
   * take `...` and a sole void, an array neither; no parameter may be an associative array.
   */
  private prototype(kind: 'function' | 'array', params: A.Parameter[], varargs: boolean, at: At): DType[] {
    const types: DType[] = [];
    let voids = 0;
    params.forEach((p, i) => {
      const what = `${p.name ?? '(anonymous)'}, parameter #${i + 1}`;
      if (p.type.kind === 'ArrayType' && p.type.keys)
        fail('D_DECL_PROTO_TYPE', `${kind} prototype may not use parameter of type dynamic variable: ${what}`, p);
      const type = this.resolve(p.type);
      if (type.kind === 'void') {
        voids++;
        // named as written: a typedef of void keeps its own name there
        const written = p.type.kind === 'NamedType' && p.type.specifier.kind === 'TypedefName' ? p.type.specifier.name : typeName(type);
        if (kind === 'array') fail('D_DECL_PROTO_TYPE', `${kind} prototype may not use parameter of type ${written}: ${what}`, p);
        if (p.name !== null) fail('D_DECL_PROTO_NAME', `void parameter may not have a name: ${p.name}`, p);
      }
      types.push(type);
    });
    if (varargs && kind === 'array') fail('D_DECL_PROTO_VARARGS', `${kind} prototype may not use a variable-length argument list`, params.at(-1) ?? at);
    if (voids > 0 && params.length + (varargs ? 1 : 0) > 1) fail('D_DECL_PROTO_VOID', 'void must be sole parameter', params[0]);
    return types;
  }

  private resolveNamed(t: A.NamedType): DType {
    const s = t.specifier;
    switch (s.kind) {
      case 'BuiltinType': {
        const b = BASE_TYPES[s.name];
        if (!b) fail('D_TYPE_ERR', `failed to resolve type ${s.name}: Unknown type name`, s);
        return b;
      }
      case 'TypedefName':
        return this.typedef(s.name, s.module, s);
      case 'StructType': {
        // A definition is shared by every declarator of its declaration: define it once.
        let def = this.defined.get(s) as StructDef | undefined;
        if (!def) this.defined.set(s, (def = s.members ? this.defineStruct(s) : this.structRef(s.union, s.tag ?? '', s.module, s)));
        return { kind: 'struct', def };
      }
      case 'EnumType': {
        let def = this.defined.get(s) as EnumDef | undefined;
        if (!def) this.defined.set(s, (def = s.enumerators ? this.defineEnum(s) : this.enumRef(s.tag ?? '', s.module, s)));
        return { kind: 'enum', def };
      }
    }
  }

  private typedef(name: string, module: string | undefined, at: At): DType {
    // D`int, D`string, D`my_t: D's own types and the program's by module name (BASE_TYPES
    // holds the keyword types).
    if (module === 'D') {
      const own = BASE_TYPES[name] ?? D_TYPEDEFS[name] ?? this.typedefs.get(name);
      if (!own) fail('D_TYPE_ERR', `failed to resolve type D\`${name}: Unknown type name`, at);
      return own;
    }
    if (module === undefined) {
      const own = this.typedefs.get(name) ?? D_TYPEDEFS[name];
      if (own) return own;
    }
    const btf = this.btfFor(module, at);
    const k = btf?.find(name, 'typedef');
    if (!btf || !k) fail('D_TYPE_ERR', `failed to resolve type ${module !== undefined ? `${module}\`` : ''}${name}: Unknown type name`, at);
    return this.fromBtf(btf, k.id);
  }

  /**
   * The BTF a struct, union or enum tag is looked up in; undefined for a module that is not
   * there, whose tags DTrace takes as forward declarations (types/tst.unloaded).
   */
  private taggedBtf(module: string | undefined, at: At): Btf | undefined {
    try {
      return this.btfFor(module, at);
    } catch (e) {
      if (e instanceof DtraceError && e.tag === 'D_TYPE_ERR' && module !== undefined) return undefined;
      throw e;
    }
  }

  private btfFor(module: string | undefined, at: At): Btf | undefined {
    // The parser may keep the scoping mark of the `` `mod`struct x `` form.
    if (module !== undefined) module = module.replace(/^`+/, '');
    if (module === undefined || module === '' || module === 'vmlinux' || module === 'genunix' || module === 'unix') return this.btf();
    try {
      return loadModuleBtf(module);
    } catch {
      fail('D_TYPE_ERR', `failed to resolve type ${module}\`: Unknown module name`, at);
    }
  }

  /** Parse a C type name such as `struct task_struct`, `int`, `char *` (for pointers without `to`). */
  typeFromName(text: string): DType | undefined {
    let s = text.trim();
    let stars = 0;
    while (s.endsWith('*')) { stars++; s = s.slice(0, -1).trim(); }
    let t: DType | undefined;
    const tagged = /^(struct|union|enum) ([A-Za-z_]\w*)$/.exec(s);
    if (tagged) {
      const at = { line: 0, column: 0 };
      t = tagged[1] === 'enum' ? { kind: 'enum', def: this.enumRef(tagged[2], undefined, at) }
        : { kind: 'struct', def: this.structRef(tagged[1] === 'union', tagged[2], undefined, at) };
    } else {
      t = BASE_TYPES[s] ?? this.typedefs.get(s) ?? D_TYPEDEFS[s];
      if (!t) {
        const btf = this.btf();
        const k = btf?.find(s, 'typedef');
        if (btf && k) t = this.fromBtf(btf, k.id);
      }
    }
    if (!t) return undefined;
    for (let i = 0; i < stars; i++) t = pointerTo(t);
    return t;
  }

  /**
   * The type a provider writes for an argument, qualifiers and all ("const char *",
   * "unsigned", "const char *const *", "struct sockaddr *"); the outermost pointer keeps the
   * text as its name, as DTrace shows it. Undefined when the base type is unknown.
   */
  typeFromDeclaration(text: string): DType | undefined {
    // A tracepoint field's `T[N]` (fixed array) or `T[]` (__data_loc array): an array of T.
    const dims = /^(.*?)((?:\s*\[\s*\d*\s*\])+)\s*$/.exec(text);
    if (dims) {
      let t = this.typeFromDeclaration(dims[1]);
      if (!t) return undefined;
      const counts = [...dims[2].matchAll(/\[\s*(\d*)\s*\]/g)].map((m) => Number(m[1] || 0));
      for (const count of counts.reverse()) t = { kind: 'array', of: t, count };
      // `T []`: of no fixed length, named so rather than [0]
      return counts.includes(0) && t.kind === 'array' ? { ...t, name: text.replace(/\s+/g, ' ').trim() } : t;
    }
    const tokens: string[] = text.match(/[A-Za-z_]\w*|\*/g) ?? [];
    const firstStar = tokens.indexOf('*');
    const baseWords = (firstStar < 0 ? tokens : tokens.slice(0, firstStar)).filter((w) => !QUALIFIERS.has(w));
    const stars = tokens.filter((w) => w === '*').length;
    const builtin = canonicalBuiltinType(baseWords);
    let t = builtin !== null && baseWords.every((w) => BUILTIN_WORDS.has(w)) ? BASE_TYPES[builtin] : this.typeFromName(baseWords.join(' '));
    if (!t) return undefined;
    for (let i = 0; i < stars; i++) t = pointerTo(t);
    if (stars > 0 && t.kind === 'pointer') t = { ...t, name: text.replace(/\s+/g, ' ').trim() };
    return t;
  }

  /** What a pointer or array points at. */
  pointee(t: DType): DType | undefined {
    if (t.kind === 'array') return t.of;
    if (t.kind !== 'pointer') return undefined;
    if (t.to) return t.to;
    const name = t.name.trim();
    if (!name.endsWith('*')) return undefined;
    return this.typeFromName(name.slice(0, -1)) ?? VOID;
  }

  // ---- struct, union and enum

  private defineStruct(s: A.StructSpecifier): StructDef {
    const key = `${s.union ? 'union' : 'struct'} ${s.tag ?? ''}`;
    const old = s.tag ? this.structs.get(key) : undefined;
    if (old && old.complete) fail('D_DECL_TYPERED', `type redeclared: ${s.union ? 'union' : 'struct'} ${s.tag}`, s);
    const def = old ?? newStruct(s.tag, s.union, 'D');
    if (s.tag) this.structs.set(key, def);
    const members: MemberInfo[] = [];
    const names = new Set<string>();
    // Layout as DTrace's CTF library lays out a type it is handed member by member: each member
    // starts at the next whole byte after the previous one's last bit, rounded up to its own
    // alignment; a bit-field is an integer of just the bytes its width needs (a power of two),
    // aligned to that; nothing pads the end. A struct aligns as its first member, a union as its
    // most aligned one (what the reference prints for sizeof and offsetof).
    let endBit = 0; // one past the last bit of the previous member (structs)
    let size = 0;
    let align = 1;
    let first = true;
    for (const m of s.members ?? []) {
      const t = this.resolve(m.type);
      const mname = m.name ?? '';
      if (m.name === null && m.bits === null) fail('D_DECL_MNAME', 'member declaration requires a name', m);
      if (m.name !== null && names.has(m.name)) fail('D_UNKNOWN', `failed to define member '${m.name}': Duplicate member or variable name.`, m);
      if (t.kind === 'struct' && !t.def.complete)
        fail('D_DECL_INCOMPLETE', `incomplete struct/union/enum ${typeName(t)}: ${mname}`, m);
      // A string member (translator output structs have them) takes DTrace's default strsize.
      const tsize = t.kind === 'string' ? DEFAULT_STRSIZE : sizeOf(t);
      if (tsize === 0 && !(t.kind === 'array' && !s.union)) fail('D_DECL_VOIDOBJ', `cannot have void member: ${mname}`, m);
      let msize = tsize;
      let malign = Math.max(1, alignOf(t));
      let mbits = tsize * 8; // where the next member may start, counted from this one's offset
      let w = 0;
      if (m.bits !== null) {
        let width: bigint;
        try {
          width = this.constant(m.bits);
        } catch (e) {
          if (e instanceof DtraceError && e.tag === 'D_NOTCONST')
            fail('D_DECL_BFCONST', 'positive integral constant expression expected as bit-field size', m);
          throw e;
        }
        if (width < 0n || (width === 0n && m.name !== null))
          fail('D_DECL_BFCONST', 'positive integral constant expression expected as bit-field size', m);
        // an integer only, as DTrace has it (an enum is refused too)
        if (t.kind !== 'int') fail('D_DECL_BFTYPE', `invalid type for bit-field: ${m.name ?? '(anon)'}`, m);
        w = Number(width);
        if (w > tsize * 8) fail('D_DECL_BFSIZE', `bit-field too big for type: ${m.name ?? '(anon)'}`, m);
        msize = w === 0 ? 0 : clp2(Math.ceil(w / 8));
        malign = Math.max(1, msize);
        mbits = w;
      }
      const off = s.union || first ? 0 : roundUp(Math.ceil(endBit / 8), malign);
      if (m.name !== null || m.bits === null) members.push({ name: mname, type: t, bitOffset: off * 8, bits: m.bits !== null ? w : 0 });
      if (s.union) {
        size = Math.max(size, msize);
        align = Math.max(align, malign);
      } else {
        if (first) align = malign;
        size = off + msize;
        endBit = off * 8 + mbits;
      }
      first = false;
      if (m.name !== null) names.add(m.name);
    }
    def.memberList = members;
    def.size = size;
    def.align = align;
    def.complete = true;
    def.origin = 'D';
    return def;
  }

  private structRef(union: boolean, tag: string, module: string | undefined, at: At): StructDef {
    const key = `${union ? 'union' : 'struct'} ${tag}`;
    // struct D`s: D's module holds the program's own types, over the kernel's (its parent).
    if (isDModule(module)) module = undefined;
    if (module === undefined) {
      const own = this.structs.get(key);
      if (own && own.complete) return own;
    }
    const btf = this.taggedBtf(module, at);
    const k = btf?.find(tag, union ? 'union' : 'struct');
    if (btf && k) {
      const t = this.fromBtf(btf, k.id);
      if (t.kind === 'struct') return t.def;
    }
    // Unknown anywhere: a forward declaration in the program, as DTrace creates (named by its
    // module when the module is not there: struct can`x of a module not loaded).
    const named = btf ? tag : scopedTag(module, tag);
    const fwdKey = `${union ? 'union' : 'struct'} ${named}`;
    let fwd = this.structs.get(fwdKey);
    if (!fwd) this.structs.set(fwdKey, (fwd = newStruct(named, union, 'D')));
    return fwd;
  }

  /** The complete definition of a forward-declared struct, if one exists anywhere by now. */
  complete(def: StructDef): StructDef | undefined {
    if (def.complete) return def;
    if (!def.tag) return undefined;
    const d = this.structRef(def.union, def.tag, undefined, { line: 0, column: 0 });
    return d.complete ? d : undefined;
  }

  private defineEnum(s: A.EnumSpecifier): EnumDef {
    const key = s.tag ?? '';
    const old = s.tag ? this.enums.get(key) : undefined;
    if (old && old.values.size > 0) fail('D_DECL_TYPERED', `type redeclared: enum ${s.tag}`, s);
    const def: EnumDef = old ?? { tag: s.tag, complete: true, values: new Map(), origin: 'D' };
    def.complete = true;
    if (s.tag) this.enums.set(key, def);
    const type: DType = { kind: 'enum', def };
    let next = 0n;
    for (const e of s.enumerators ?? []) {
      let value = next;
      if (e.value) {
        if (e.value.kind === 'Identifier' && def.values.has(e.value.name)) value = def.values.get(e.value.name)!;
        else {
          try {
            value = this.constant(e.value);
          } catch (err) {
            if (err instanceof DtraceError && err.tag === 'D_NOTCONST')
              fail('D_DECL_ENCONST', `enumerator '${e.name}' must be assigned to an integral constant expression`, e);
            throw err;
          }
          if (value > 0x7fffffffn || value < -0x80000000n)
            fail('D_DECL_ENOFLOW', `enumerator '${e.name}' value overflows INT_MAX (2147483647)`, e);
        }
      }
      // Twice in one enum too: the name is already an enumerator, as illumos and the suite's
      // types/err.D_DECL_IDRED.dupenum have it (DTrace for Linux 2.0.1's type library refused
      // it first: D_UNKNOWN "failed to define enumerator").
      if (this.enumerators.has(e.name) || this.inlines.has(e.name) || BUILTIN_IDENTS.has(e.name) || this.isGlobal(e.name))
        fail('D_DECL_IDRED', `identifier redeclared: ${e.name}`, e);
      def.values.set(e.name, value);
      this.enumerators.set(e.name, { value, type });
      next = value + 1n;
    }
    return def;
  }

  private enumRef(tag: string, module: string | undefined, at: At): EnumDef {
    if (isDModule(module)) module = undefined; // (as struct D`s)
    if (module === undefined) {
      const own = this.enums.get(tag);
      if (own) return own;
    }
    const btf = this.taggedBtf(module, at);
    const k = btf?.find(tag, 'enum');
    if (btf && k) {
      const t = this.fromBtf(btf, k.id);
      if (t.kind === 'enum') return t.def;
    }
    const named = btf ? tag : scopedTag(module, tag);
    const fwd: EnumDef = { tag: named, complete: false, values: new Map(), origin: 'D' };
    this.enums.set(named, fwd);
    return fwd;
  }

  /** A kernel enumerator (e.g. PIDTYPE_PID) as a constant, when no program name shadows it. */
  kernelEnumerator(name: string): { value: bigint; type: DType } | undefined {
    const btf = this.btf();
    const e = btf?.findEnumerator(name);
    if (!btf || !e) return undefined;
    return { value: e.value, type: this.fromBtf(btf, e.type) };
  }

  // ---- kernel types

  /**
   * The type of kernel symbol `name` of `module` from BTF: a variable's type (BTF has VAR entries
   * for per-CPU variables only) or a function; undefined when BTF does not describe it.
   */
  kernelSymbolType(module: string, name: string): DType | undefined {
    let btf: Btf | undefined;
    try {
      btf = module === 'vmlinux' ? this.btf() : loadModuleBtf(module);
    } catch {
      return undefined;
    }
    const v = btf?.find(name, 'var');
    if (btf && v?.kind === 'var') return this.fromBtf(btf, v.type);
    if (btf?.find(name, 'func')) return { kind: 'function', name: 'function' };
    return undefined;
  }

  /** The D type of a BTF type; struct members are converted lazily. */
  fromBtf(btf: Btf, id: number): DType {
    let cache = this.kernelTypes.get(btf.name);
    if (!cache) this.kernelTypes.set(btf.name, (cache = new Map()));
    const hit = cache.get(id);
    if (hit) return hit;
    const t = this.convertBtf(btf, id, cache);
    cache.set(id, t);
    return t;
  }

  private convertBtf(btf: Btf, id: number, cache: Map<number, DType>): DType {
    const t = btf.type(id);
    switch (t.kind) {
      case 'void':
        return VOID;
      case 'int': {
        if (t.size === 1 || t.size === 2 || t.size === 4 || t.size === 8) {
          const it = intType(t.size, t.signed || (t.char && t.name === 'char'), cIntName(t.name));
          return it.kind === 'int' && it.name !== t.name ? { ...it, spelling: t.name } : it;
        }
        return { kind: 'array', of: intType(1, false, 'unsigned char'), count: t.size, name: t.name };
      }
      case 'float':
        return { kind: 'float', size: t.size === 4 ? 4 : t.size === 8 ? 8 : 16, name: t.name };
      case 'ptr': {
        const target = btf.resolvedType(t.target);
        if (target.kind === 'func_proto') return { kind: 'pointer', name: btf.typeName(id), to: { kind: 'function', name: 'function' } };
        const to = this.fromBtf(btf, t.target);
        return { kind: 'pointer', name: pointerName(to), to };
      }
      case 'array':
        return { kind: 'array', of: this.fromBtf(btf, t.element), count: t.count };
      case 'typedef':
        return named(this.fromBtf(btf, t.target), t.name);
      case 'const': case 'volatile': case 'restrict': case 'type_tag':
        return this.fromBtf(btf, t.target);
      case 'struct': case 'union': {
        const def = newStruct(t.name || null, t.kind === 'union', btf.name);
        const result: DType = { kind: 'struct', def };
        cache.set(id, result); // before members: they may point back here
        def.size = t.size;
        def.complete = true;
        let members: MemberInfo[] | null = null;
        def.members = () => (members ??= t.members.map((m) => this.btfMember(btf, m)));
        // DTrace aligns a kernel struct or union as its first member (a D struct nesting one
        // places it so), whatever the compiler that built the kernel did.
        let align: number | null = null;
        Object.defineProperty(def, 'align', {
          get: () => (align ??= (align = 1, Math.max(1, def.members().length ? alignOf(def.members()[0].type) : 1))),
        });
        return result;
      }
      case 'fwd': {
        const full = t.name ? btf.find(t.name, t.union ? 'union' : 'struct') : undefined;
        if (full) return this.fromBtf(btf, full.id);
        return { kind: 'struct', def: newStruct(t.name, t.union, btf.name) };
      }
      case 'enum': case 'enum64': {
        const values = new Map<string, bigint>();
        for (const v of t.values) values.set(v.name, v.value);
        return { kind: 'enum', def: { tag: t.name || null, complete: true, values, origin: btf.name } };
      }
      case 'func_proto': case 'func':
        return { kind: 'function', name: 'function' };
      default:
        return VOID;
    }
  }

  private btfMember(btf: Btf, m: { name: string; type: number; bitOffset: number; bitfieldSize: number }): MemberInfo {
    let bitOffset = m.bitOffset;
    let bits = m.bitfieldSize;
    if (bits === 0) {
      // Old-style BTF bit-fields live in the int encoding.
      const rt = btf.resolvedType(m.type);
      if (rt.kind === 'int' && (rt.bitOffset !== 0 || rt.bits !== rt.size * 8)) {
        bitOffset += rt.bitOffset;
        bits = rt.bits;
      }
    }
    return { name: m.name, type: this.fromBtf(btf, m.type), bitOffset, bits };
  }

  // ---- members

  /** Find a member, looking inside anonymous struct/union members as C does. */
  member(def: StructDef, name: string): MemberInfo | undefined {
    return findMember(def, name, 0, 0);
  }

  // ---- constant expressions

  /** Evaluate an integer constant expression (array sizes, bit-field widths, enum values). */
  constant(e: A.Expression): bigint {
    switch (e.kind) {
      case 'IntegerLiteral':
        return e.value;
      case 'MacroVariable': {
        const literal = this.macroLiteral?.(e);
        if (literal !== undefined && literal.kind !== 'MacroVariable') return this.constant(literal);
        break;
      }
      case 'Identifier': {
        const en = this.enumerators.get(e.name);
        if (en) return en.value;
        const inl = this.inlines.get(e.name);
        if (inl?.constant !== undefined) return inl.constant;
        break;
      }
      case 'Unary': {
        const v = this.constant(e.operand);
        if (e.op === '-') return -v;
        if (e.op === '+') return v;
        if (e.op === '~') return ~v;
        if (e.op === '!') return v === 0n ? 1n : 0n;
        break;
      }
      case 'Binary': {
        const l = this.constant(e.left), r = this.constant(e.right);
        switch (e.op) {
          case '+': return l + r;
          case '-': return l - r;
          case '*': return l * r;
          case '/': case '%':
            if (r === 0n) fail('D_DIV_ZERO', 'expression contains division by zero', e);
            return e.op === '/' ? l / r : l % r;
          case '<<': return l << r;
          case '>>': return l >> r;
          case '&': return l & r;
          case '|': return l | r;
          case '^': return l ^ r;
          case '==': return l === r ? 1n : 0n;
          case '!=': return l !== r ? 1n : 0n;
          case '<': return l < r ? 1n : 0n;
          case '<=': return l <= r ? 1n : 0n;
          case '>': return l > r ? 1n : 0n;
          case '>=': return l >= r ? 1n : 0n;
          case '&&': return l && r ? 1n : 0n;
          case '||': return l || r ? 1n : 0n;
          case '^^': return (l !== 0n) !== (r !== 0n) ? 1n : 0n;
        }
        break;
      }
      case 'SizeofType': {
        const t = this.resolve(e.type.type);
        const n = sizeOf(t);
        if (n === 0) fail('D_SIZEOF_TYPE', 'cannot apply sizeof to an operand of unknown size', e);
        return BigInt(n);
      }
      case 'Cast': {
        const t = this.resolve(e.type.type);
        const v = this.constant(e.operand);
        if (t.kind === 'int') return t.signed ? BigInt.asIntN(t.size * 8, v) : BigInt.asUintN(t.size * 8, v);
        return v;
      }
      case 'Conditional':
        return this.constant(e.test) !== 0n ? this.constant(e.consequent) : this.constant(e.alternate);
      default:
        break;
    }
    throw new DtraceError('D_NOTCONST', 'not an integral constant expression', { line: e.line, column: e.column, file: e.file });
  }
}

const DEFAULT_STRSIZE = Number(optionDefault('strsize'));
const QUALIFIERS = new Set(['const', 'volatile', 'restrict']);
const BUILTIN_WORDS = new Set(['signed', 'unsigned', 'short', 'long', 'char', 'int', 'float', 'double', 'void']);

/**
 * Identifiers D itself defines, which program enumerators may not reuse: the built-in variables
 * and the names the D library and the compiler give meaning to.
 */
export const BUILTIN_IDENTS: ReadonlySet<string> = new Set([
  ...DIF_VAR_BY_NAME.keys(),
  'chip', 'cpu', 'curlwpsinfo', 'curpsinfo', 'cwd', 'lgrp', 'progenyof', 'pset', 'root',
]);

function newStruct(tag: string | null, union: boolean, origin: string): StructDef & { memberList: MemberInfo[] } {
  const def: StructDef & { memberList: MemberInfo[] } = {
    tag, union, complete: false, size: 0, align: 1, origin, memberList: [],
    members: () => def.memberList,
  };
  return def;
}

function findMember(def: StructDef, name: string, base: number, depth: number): MemberInfo | undefined {
  if (depth > 32) return undefined;
  const members = def.members();
  for (const m of members) if (m.name === name) return base === 0 ? m : { ...m, bitOffset: m.bitOffset + base };
  for (const m of members) {
    if (m.name !== '' || m.type.kind !== 'struct') continue;
    const inner = findMember(m.type.def, name, base + m.bitOffset, depth + 1);
    if (inner) return inner;
  }
  return undefined;
}

/** Give a type the typedef name it was reached through (for messages and printf's checks). */
function named(t: DType, name: string): DType {
  switch (t.kind) {
    case 'int': return { kind: 'int', size: t.size, signed: t.signed, name };
    case 'pointer': case 'float': return { ...t, name };
    case 'array': case 'struct': case 'enum': return { ...t, name };
    default: return t;
  }
}

function userlandOf(t: A.TypeExpression): boolean {
  return t.kind === 'NamedType' && t.userland;
}

/** BTF spells integers as GCC does (`long unsigned int`); D messages use the C spelling. */
function cIntName(name: string): string {
  const map: Record<string, string> = {
    'long int': 'long', 'long unsigned int': 'unsigned long', 'short int': 'short',
    'short unsigned int': 'unsigned short', 'long long int': 'long long',
    'long long unsigned int': 'unsigned long long',
  };
  return map[name] ?? name;
}

/** The least power of two not below n (n >= 1). */
function clp2(n: number): number {
  let p = 1;
  while (p < n) p *= 2;
  return p;
}

function roundUp(n: number, a: number): number {
  return a <= 1 ? n : Math.ceil(n / a) * a;
}

/** sizeof in bytes; 0 for void, functions, strings' unknown and incomplete types. */
export function sizeOf(t: DType, strsize = 0): number {
  switch (t.kind) {
    case 'int': case 'float': return t.size;
    case 'pointer': return 8;
    case 'enum': return 4;
    case 'array': return t.count * sizeOf(t.of, strsize);
    case 'struct': return t.def.complete ? t.def.size : 0;
    case 'string': return strsize;
    default: return 0;
  }
}

export function alignOf(t: DType): number {
  switch (t.kind) {
    case 'int': return t.size;
    case 'float': return Math.min(t.size, 16);
    case 'pointer': return 8;
    case 'enum': return 4;
    case 'array': return alignOf(t.of);
    case 'struct': return t.def.align;
    default: return 1;
  }
}

/** Is this a char (1-byte integer)? char arrays and char pointers are D string-compatible. */
export function isChar(t: DType): boolean {
  return t.kind === 'int' && t.size === 1;
}

/** D's string-compatible types: strings, char arrays and char pointers. */
export function isStringCompatible(t: DType, scope?: TypeScope): boolean {
  if (t.kind === 'string') return true;
  if (t.kind === 'array') return isChar(t.of);
  if (t.kind === 'pointer') {
    const to = t.to ?? scope?.pointee(t);
    return to !== undefined && isChar(to);
  }
  return false;
}

