// The compiler driver: D sources (-n/-P/-m/-f/-i descriptions and -s scripts) -> one program.
//
// Each source is parsed, its probe descriptions resolved (the -P/-m/-f/-i forms name a single
// element) and matched through the provider registry, its pragmas turned into options, and its
// clauses compiled into ECB descriptions. Nothing after this point sees the AST.

import { existsSync } from 'node:fs';
import { parse } from './parser.js';
import type * as A from './ast.js';
import { CodeGenerator, functionKind } from './codegen.js';
import { checkInline } from './typed-expr.js';
import { isVariableDeclaration } from './variables.js';
import { DtraceError } from './errors.js';
import { DEFAULT_LIBRARY_DIR, libraryFiles, libraryWords, libraryDependencies, loadLibrary, namesLibrary, orderLibraries, type LibraryFile } from './library.js';
import { KEYWORDS } from './lexer.js';
import { DIF_VAR_BY_NAME } from '../dif/constants.js';
import { ACTION_PROTOTYPES, SUBROUTINE_BY_NAME } from '../dif/subroutines.js';
import { BUILTIN_IDENTS } from './ctypes.js';
import { AGG_FUNCTION_NAMES } from './aggregations.js';
import { defineTranslator } from './translators.js';
import {
  clauseAttributes, DEF_ATTR, descriptionAttributes, MAX_ATTR, minAttr, providerAttributes, stabilityReport, statementReport,
  type Attribute, type ProgramAttributes,
} from './stability.js';
import type { ProbeDescription, Program } from '../dof/program.js';
import type { ProbeRegistry } from '../providers/registry.js';
import { isOverspecified, SPECIFYING } from '../providers/listing.js';
import { parseAttribute } from '../abi/stability.js';
import { isSet, numericOption, parseOptionValue, OptionError, isCommandLineOnly, BAD_OPTION_CONTEXT } from '../options.js';

/** -M (RFD 2): every probe of the instance its text names. */
export type SourceKind = 'n' | 'P' | 'm' | 'f' | 'i' | 's' | 'M';

export interface Source {
  kind: SourceKind;
  text: string;
  name: string; // script path for -s, else the text
}

export interface CompileOptions {
  registry: ProbeRegistry;
  options: Map<string, string>;
  macroArgs: string[];
  macros?: Map<string, bigint>;
  zdefs: boolean;
  /** D library directories (-L) loaded after the package's own lib/dtrace. */
  libraryDirs?: string[];
}

/** A compile error with the source it came from, for dtrace's message. */
export class SourceError extends Error {
  constructor(readonly error: DtraceError, readonly source: Source) {
    super(error.message);
  }
}

export interface Compiled {
  program: Program;
  /** "description 'X' matched N probes" / "script 'x.d' matched N probes", per source. */
  matchMessages(matched: number[]): string[];
  /** Each source's stability attributes (dtrace -v). */
  attributes: ProgramAttributes[];
  /** dtrace -v's stability report of each source; `executed` false under -e (statement blocks). */
  stabilityReports(executed: boolean): string[];
}

const FIELD: Record<Exclude<SourceKind, 's' | 'i' | 'M'>, number> = { P: 0, m: 1, f: 2, n: 3 };

/** The top-level items that make a translation unit non-empty. */
const NONEMPTY = new Set(['Clause', 'InlineDefinition', 'TranslatorDefinition', 'ProviderDefinition']);

export function compile(sources: Source[], opts: CompileOptions): Compiled {
  // The program's options: -x's, then its pragmas' over them. The DOF carries them to the device.
  const options = new Map<string, string>(opts.options);
  const macros = opts.macros ?? defaultMacros();
  const argRefs = new Set<number>();
  const cgOpts = {
    strsize: numericOption(options, 'strsize'), macroArgs: opts.macroArgs, macros, defaultArgs: isSet(options, 'defaultargs'), argRefs, arg0: 'dtrace',
    option: (name: string) => options.get(name),
  };
  const cg = new CodeGenerator(cgOpts);
  const ecbsOf: number[][] = [];
  // -L libraries are always loaded (their errors are the user's to see); the system library
  // (-x syslibdir, else the package's own) only when the program may name what it declares, or
  // when a clause's args[] are of its types (io:::start's bufinfo_t *, loaded as args[] is
  // compiled), and none at all under -x nolibs.
  const systemDir = opts.options.get('syslibdir') ?? DEFAULT_LIBRARY_DIR;
  const libs = isSet(opts.options, 'nolibs') ? [] : libraryFiles([systemDir, ...(opts.libraryDirs ?? [])]);
  const keywords = new Set(KEYWORDS);
  // curcpu is built in, but its type, cpuinfo_t, is the library's: naming it needs the library.
  const known = (w: string) => w !== 'curcpu' && (keywords.has(w) || DIF_VAR_BY_NAME.has(w) || cg.types.isDTypeName(w));
  let declared: Set<string> | undefined;
  const libraryNamed = (texts: string[]) => namesLibrary(declared ??= libraryWords(libs, known), texts);
  let libraryLoaded = false;
  const loadLibraries = () => {
    libraryLoaded = true;
    cg.libraryFor = undefined;
    let ordered: LibraryFile[];
    try {
      ordered = orderLibraries(libs);
    } catch (e) {
      if (e instanceof DtraceError) throw new SourceError(e, sources[0]);
      throw e;
    }
    // As libdtrace, a library whose provider or module is not here is left out, silently, and
    // so is one that depends on a library left out.
    const skipped = new Set<string>();
    for (const lib of ordered) {
      if (libraryDependencies(lib).some((d) => d.cls === 'library' ? skipped.has(d.name) : dependencyMet(d.cls, d.name, opts.registry) === false)) {
        skipped.add(lib.name);
        continue;
      }
      try {
        loadLibrary(cg, lib);
      } catch (e) {
        if (e instanceof DtraceError) throw new SourceError(e, { kind: 's', text: lib.text, name: lib.name });
        throw e;
      }
    }
  };
  const programTexts = [...sources.map((s) => s.text), ...opts.macroArgs];
  if (libs.length > 0) {
    cg.libraryFor = (types) => {
      if (!libraryLoaded && libraryNamed(types)) loadLibraries();
    };
    if ((opts.libraryDirs ?? []).length > 0 || libraryNamed(programTexts)) loadLibraries();
  }
  // What the D library defines: a #pragma attributes may not change it (D_PRAGMA_SCOPE).
  const libraryNames = new Set([...cg.types.inlines.keys(), ...cg.types.enumerators.keys()]);
  const attributes: ProgramAttributes[] = [];
  const statementsOf: { p: ProbeDescription; desc: Attribute; args: Attribute }[][] = [];
  for (const source of sources) {
    const first = cg.ecbs.length;
    const stability: ProgramAttributes = { descAttr: MAX_ATTR, stmtAttr: MAX_ATTR };
    const statements: { p: ProbeDescription; desc: Attribute; args: Attribute }[] = [];
    argRefs.clear();
    cgOpts.arg0 = source.kind === 's' ? source.name : 'dtrace';
    try {
      const ast = parse(source.text, {
        file: source.kind === 's' ? source.name : undefined, probeSpec: source.kind !== 's', pspec: isSet(opts.options, 'pspec'),
        specifying: SPECIFYING[source.kind],
        pragmaBeforeError: (p) => pragma(p, new Map(options), opts.registry),
        isTypeName: (n) => cg.types.isTypeName(n),
        isKnownName: (n) => isKnownName(cg, n),
      });
      rejectFloatConstants(ast);
      const attributePragmas: A.Pragma[] = [];
      for (const item of ast.items) {
        if (item.kind === 'Pragma') {
          pragma(item, options, opts.registry);
          if (item.directive === 'attributes') attributePragmas.push(item);
          // As dt_opt_strsize resizes D's string type, a pragma's strsize holds from here on.
          cgOpts.strsize = numericOption(options, 'strsize');
          cgOpts.defaultArgs = isSet(options, 'defaultargs');
        } else if (item.kind === 'Clause') {
          const probes = item.probes.map((p) => p.id !== undefined ? describeId(p, opts.registry)
            : resolveDescription(p, source.kind, macros, opts.macroArgs, cgOpts));
          const matches = probes.map((p) => opts.registry.match(p));
          const why = probes.map((p) => providerProblems(p, opts.registry));
          for (const [i, p] of probes.entries()) {
            // A pid description that names nothing because it is malformed (D_PROC_NAME, ...) is
            // an error even under -Z, as in DTrace.
            // Five elements name an instance (RFD 2). When that element is no instance but one of
            // this machine's providers (`profile::::tick-1s`), the description is what DTrace
            // calls it, overspecified -- even under -Z.
            if (matches[i].length === 0 && p.instance !== undefined && !opts.registry.knowsInstance(p.instance)
              && opts.registry.provider(p.instance) !== undefined) {
              throw new DtraceError('D_PDESC_INVAL', `invalid probe description "${item.probes[i].text}": Overspecified probe description`,
                { line: item.probes[i].line });
            }
            const refused = matches[i].length === 0 ? opts.registry.refusalFor(p) : undefined;
            if (refused) throw new DtraceError(refused.tag, refused.message, { line: item.probes[i].line });
            if (!opts.zdefs && matches[i].length === 0) {
              throw new DtraceError('D_PDESC_ZERO', `probe description ${describe(p)} does not match any probes${why[i]}${syscallAlias(p, opts.registry)}`,
                { line: item.probes[i].line });
            }
          }
          cg.clauseProbes = probes.map((desc, i) => ({ desc, probes: matches[i], why: why[i] }));
          cg.clause(item, probes);
          cg.clauseProbes = undefined;
          const minimum = amin(cgOpts.option('amin'));
          for (const p of probes) {
            const attrs = { desc: descriptionAttributes(p, opts.registry), args: providerAttributes(p, opts.registry).args };
            stability.descAttr = minAttr(stability.descAttr, attrs.desc);
            stability.stmtAttr = minAttr(stability.stmtAttr, clauseAttributes(item, cg.types, attrs.args, minimum));
            statements.push({ p, ...attrs });
          }
        } else if (item.kind === 'Declaration' && item.declarators.some((d) => d.name.includes('`'))) {
          const d = item.declarators.find((x) => x.name.includes('`'))!;
          throw new DtraceError('D_DECL_SCOPE', `D scoping operator may not be used in a declaration name (${d.name})`, { line: d.line });
        } else if (item.kind === 'Declaration' && item.storage === 'typedef' && item.declarators.some((d) => isGlobalIdentifier(cg, d.name))) {
          const d = item.declarators.find((x) => isGlobalIdentifier(cg, x.name))!;
          throw new DtraceError('D_DECL_IDRED', `global variable identifier redeclared: ${d.name}`, { line: d.line, file: d.file });
        } else if (item.kind === 'Declaration' && cg.types.declare(item, true)) {
          // A typedef or a struct/union/enum definition: recorded in cg.types.
        } else if (item.kind === 'InlineDefinition') {
          defineInline(cg, item);
        } else if (item.kind === 'Declaration' && isVariableDeclaration(item)) {
          cg.vars.declare(item, true);
        } else if (item.kind === 'TranslatorDefinition') {
          defineTranslator(cg.difoGen(), item);
        } else if (item.kind === 'Declaration' && (item.storage === 'auto' || item.storage === 'register' || item.storage === 'static') &&
          !item.declarators.every((d) => d.type.kind === 'FunctionType')) {
          // (A static function prototype is an extern one, as in dt_decl.)
          throw new DtraceError('D_DECL_BADCLASS', 'specified storage class not appropriate in D', { line: item.line });
        } else if (item.kind === 'ProviderDefinition') {
          // A provider's probes for a program's own USDT (dtrace -h/-G): nothing to enable here.
        } else if (item.kind === 'Declaration' && item.declarators.some((d) => d.type.kind !== 'FunctionType')) {
          throw new DtraceError('D_UNSUPPORTED', 'declarations are not supported yet', { line: item.line });
        }
      }
      for (const p of attributePragmas) attributesTarget(p, ast, cg, libraryNames, opts.registry);
      // A translation unit of only pragmas and declarations is empty to DTrace (they make no
      // node of the program), and an error unless -x empty allows it.
      if (!isSet(options, 'empty') && !ast.items.some((i) => NONEMPTY.has(i.kind))) {
        throw new DtraceError('D_EMPTY', 'empty D program translation unit', { line: source.text.split('\n').length });
      }
      checkArgsReferenced(source, opts.macroArgs, argRefs, isSet(options, 'argref'));
    } catch (e) {
      if (e instanceof DtraceError) throw new SourceError(e, source);
      // Chevrotain's parser and the passes over the AST recurse, so a program nested past what
      // Node's stack holds (thousands of parentheses, unary operators or if blocks) overflows it
      // (Chevrotain's recovery may then fail with an invalid array length): a compile error, as
      // DTrace's parser reports the overflow of its own stack, not an internal error.
      if (e instanceof RangeError && /call stack|array length/.test(e.message)) {
        throw new SourceError(new DtraceError('D_SYNTAX', 'program is nested too deeply to compile'), source);
      }
      throw e;
    }
    ecbsOf.push(Array.from({ length: cg.ecbs.length - first }, (_, i) => first + i));
    attributes.push(statements.length ? stability : { descAttr: DEF_ATTR, stmtAttr: DEF_ATTR });
    statementsOf.push(statements);
  }
  const program: Program = { ecbs: cg.ecbs, options };
  return {
    program,
    attributes,
    stabilityReports(executed: boolean): string[] {
      return sources.map((s, i) => {
        const blocks = executed ? '\n' : statementsOf[i].map(({ p, desc, args }) => {
          const probe = opts.registry.match(p)[0];
          return statementReport(p, probe && { desc, args, argTypes: (probe.xargs ?? probe.args).filter((a) => a.type !== null).map((a) => a.type!) });
        }).join('');
        const [what, name] = s.kind === 's' ? ['script', s.name] : ['description', descriptionText(s.text)];
        return stabilityReport(what, name, attributes[i], blocks);
      });
    },
    matchMessages(matched: number[]): string[] {
      return sources.map((s, i) => {
        const n = ecbsOf[i].reduce((sum, e) => sum + (matched[e] ?? 0), 0);
        const what = s.kind === 's' ? `script '${s.name}'` : `description '${descriptionText(s.text)}'`;
        return `dtrace: ${what} matched ${n} probe${n === 1 ? '' : 's'}`;
      });
    },
  };
}

/** -x amin (or its pragma): the lowest attributes a program may use (options.ts checked it). */
function amin(value: string | undefined): Attribute | undefined {
  return value === undefined ? undefined : parseAttribute(value) ?? undefined;
}

/**
 * DTrace's lexer refuses a floating-point constant wherever it lexes expressions, so the whole
 * program fails before any clause is checked: the parser keeps them only so this can say where.
 */
function rejectFloatConstants(ast: A.Program): void {
  const first = ast.firstFloat;
  if (first) throw new DtraceError('D_SYNTAX', 'floating-point constants are not permitted', { line: first.line, column: first.column, file: first.file });
}

/** `inline T name = expr;`: recorded, then its value type-checked against T. */
function defineInline(cg: CodeGenerator, item: A.InlineDefinition): void {
  // D's own names: DTrace shows what each is ("tracing function", a built-in's "scalar").
  const builtin = functionKind(item.name) ?? (BUILTIN_IDENTS.has(item.name) ? 'scalar' : undefined);
  if (builtin !== undefined)
    throw new DtraceError('D_DECL_IDRED', `identifier redefined: ${item.name}\n\t current: inline definition\n\tprevious: ${builtin} `, { line: item.line, file: item.file });
  cg.types.defineInline(item, (n) => cg.global(n) !== undefined);
  checkInline(cg.difoGen(), item.name);
}

/** The text dtrace shows for a -n argument: up to its predicate or action. */
function descriptionText(text: string): string {
  const m = /[/{]/.exec(text);
  return m ? text.slice(0, m.index) : text;
}

function describe(p: ProbeDescription): string {
  // RFD 2: a description for another instance says so; `host` is every description's default.
  const instance = p.instance !== undefined && p.instance !== 'host' ? `${p.instance}:` : '';
  return `${instance}${p.provider}:${p.module}:${p.function}:${p.name}`;
}

/** Whether this system has the provider or module a depends_on pragma names (undefined: no such class). */
function dependencyMet(cls: string, name: string, registry: ProbeRegistry): boolean | undefined {
  if (cls === 'provider') return registry.provider(name) !== undefined;
  // A module with types: Linux keeps each one's BTF under /sys/kernel/btf.
  if (cls === 'module') return existsSync(`/sys/kernel/btf/${name}`);
  return undefined;
}

/**
 * A control line (libdtrace's dt_pragma): `#pragma D option|depends_on|attributes|binding`,
 * `#error` and `#ident` in any of their forms; other `#pragma` lines are ignored, as C does.
 */
function pragma(p: A.Pragma, options: Map<string, string>, registry: ProbeRegistry): void {
  const fail = (tag: string, message: string): never => {
    throw new DtraceError(tag, message, { line: p.line, file: p.file });
  };
  let [directive, args] = [p.directive, p.args];
  if (directive === 'other-pragma') {
    // `#pragma error ...`, `#pragma ident ...`: the directives a plain #pragma may name.
    if (args[0] !== 'error' && args[0] !== 'ident') return;
    [directive, args] = [args[0], args.slice(1)];
  }
  switch (directive) {
    case 'line':
    case 'ident':
      return;
    case 'error':
      return fail('D_PRAGERR', `#${directive}: ${args.map((a) => `${a} `).join('')}`);
    case 'option': {
      if (p.options.length === 0) fail('D_PRAGMA_MALFORM', 'malformed #pragma option <option>=<val>');
      if (p.options.length > 1) fail('D_PRAGMA_MALFORM', 'superfluous arguments specified for #pragma option');
      const o = p.options[0]!;
      try {
        if (isCommandLineOnly(o.name)) throw new OptionError(o.name, BAD_OPTION_CONTEXT);
        const [name, value] = parseOptionValue(o.name, o.value ?? null);
        options.set(name, value);
      } catch (e) {
        if (!(e instanceof OptionError)) throw e;
        const what = o.value === undefined ? `'${o.name}'` : `'${o.name}' to '${o.value}'`;
        fail('D_PRAGMA_OPTSET', `failed to set option ${what}: ${e.reason}`);
      }
      return;
    }
    case 'depends_on': {
      const [cls, name] = args;
      if (cls === undefined || name === undefined) fail('D_PRAGMA_MALFORM', 'malformed #pragma depends_on <class> <name>');
      // A D library may depend on another (library.ts); a program may not.
      if (cls === 'library') fail('D_PRAGMA_DEPEND', 'main program may not explicitly depend on a library');
      const found = dependencyMet(cls!, name!, registry);
      if (found === undefined) fail('D_PRAGMA_INVAL', `invalid class ${cls} specified by #pragma depends_on`);
      if (!found) fail('D_PRAGMA_DEPEND', `program requires ${cls} ${name}`);
      return;
    }
    case 'attributes': {
      if (args.length < 2) fail('D_PRAGMA_MALFORM', 'malformed #pragma attributes <attributes> <ident>');
      if (parseAttribute(args[0]!) === null) fail('D_PRAGMA_INVAL', 'invalid attributes specified by #pragma attributes');
      const part = args[3];
      if (args[1] === 'provider' && part !== undefined && registry.provider(args[2]!) !== undefined &&
        !['provider', 'module', 'function', 'name', 'args'].includes(part))
        fail('D_PRAGMA_INVAL', `invalid component "${args[2]}" in attribute #pragma for provider ${part}`);
      return;
    }
    case 'binding':
      if (args.length < 2) fail('D_PRAGMA_MALFORM', 'malformed #pragma binding "version" <ident>');
      if (!/^\d+\.\d+(\.\d+)?$/.test(args[0]!)) fail('D_PRAGMA_INVAL', 'invalid version string specified by #pragma binding');
      return;
    default:
      return fail('D_PRAGMA_INVAL', `invalid D pragma: ${directive}`);
  }
}

/**
 * What `#pragma D attributes ATTR NAME` names must exist: a provider (this kernel's or one the
 * program defines for -h/-G), or a global the program declares (anywhere in it), an inline or an
 * enumerator of its own. A variable, subroutine, action or constant built into DTrace or its
 * library is D_PRAGMA_SCOPE; anything else -- a variable only assigned, a self/this/extern
 * declaration, a type -- D_PRAGMA_UNUSED.
 */
function attributesTarget(p: A.Pragma, ast: A.Program, cg: CodeGenerator, libraryNames: Set<string>, registry: ProbeRegistry): void {
  const fail = (tag: string, message: string): never => {
    throw new DtraceError(tag, message, { line: p.line, file: p.file });
  };
  const name = p.args[1]!;
  if (name === 'provider') {
    const own = ast.items.some((i) => i.kind === 'ProviderDefinition' && i.name === p.args[2]);
    if (!own && registry.provider(p.args[2] ?? '') === undefined) fail('D_PRAGMA_UNUSED', 'unused #pragma attributes');
    return;
  }
  const declared = ast.items.some((i) => i.kind === 'Declaration' && i.storage === null &&
    i.declarators.some((d) => d.name === name && d.type.kind !== 'FunctionType'));
  if (declared) return;
  if (libraryNames.has(name) || BUILTIN_IDENTS.has(name) || SUBROUTINE_BY_NAME.has(name) || ACTION_PROTOTYPES.has(name) || AGG_FUNCTION_NAMES.has(name))
    fail('D_PRAGMA_SCOPE', '#pragma attributes cannot modify entity defined outside program scope');
  if (cg.types.inlines.has(name) || cg.types.enumerators.has(name)) return;
  fail('D_PRAGMA_UNUSED', 'unused #pragma attributes');
}

/** Turn a parsed description into the program model, honouring -P/-m/-f's element. */
function resolveDescription(p: A.ProbeDescription, kind: SourceKind, macros: Map<string, bigint>, args: string[],
  refs: { defaultArgs?: boolean; argRefs: Set<number>; arg0: string }): ProbeDescription {
  let fields = [p.provider, p.module, p.function, p.name];
  let instance = p.instance;
  if (kind === 'M') {
    // -M NAME: the instance, every other element empty.
    fields = ['', '', '', ''];
    instance = splitDescription(p.text).join(':');
  } else if (kind !== 's' && kind !== 'n' && kind !== 'i') {
    // -P/-m/-f: the last element written is the provider, module or function.
    const parts = splitDescription(p.text);
    const at = FIELD[kind];
    if (isOverspecified(parts, at)) {
      throw new DtraceError('D_PDESC_INVAL', `invalid probe description "${p.text.trim()}": Overspecified probe description`, { line: p.line });
    }
    fields = ['', '', '', ''];
    for (let i = parts.length - 1, f = at; i >= 0 && f >= 0; i--, f--) fields[f] = parts[i];
    instance = 'host';
  }
  const expand = (s: string) => s.replace(/\$\$?(\w+)/g, (m, name: string) => {
    if (/^\d+$/.test(name)) {
      refs.argRefs.add(Number(name));
      const v = Number(name) === 0 ? refs.arg0 : args[Number(name) - 1] ?? (refs.defaultArgs ? (m.startsWith('$$') ? '' : '0') : undefined);
      if (v === undefined) throw new DtraceError('D_MACRO_UNDEF', `macro argument ${m} is not defined`, { line: p.line });
      return v;
    }
    const v = macros.get(name);
    if (v === undefined) throw new DtraceError('D_MACRO_UNDEF', `macro variable ${m} is not defined`, { line: p.line });
    return v.toString();
  });
  return {
    instance: instance || 'host', provider: expand(fields[0]), module: expand(fields[1]),
    function: expand(fields[2]), name: expand(fields[3]), id: p.id ?? 0,
  };
}

/** A probe id (-i 42, or a description that is only a number) names exactly one probe. */
function describeId(p: A.ProbeDescription, registry: ProbeRegistry): ProbeDescription {
  const probe = registry.byId(p.id!);
  if (!probe) throw new DtraceError('D_PDESC_INVAL', `invalid probe identifier ${p.id}: Unknown probe identifier`, { line: p.line });
  return { instance: 'host', provider: probe.provider, module: probe.module, function: probe.func, name: probe.name, id: probe.id };
}

/**
 * DTrace refuses a program that does not use its last macro argument (a likely mistake in how
 * it was invoked), unless -x argref. The error is reported at the end of the source.
 */
function checkArgsReferenced(source: Source, args: string[], refs: Set<number>, argRef: boolean): void {
  if (argRef || args.length === 0 || refs.has(args.length)) return;
  throw new DtraceError('D_MACRO_UNUSED', `extraneous argument '${args[args.length - 1]}' ($${args.length} is not referenced)`,
    { line: source.text.split('\n').length });
}

function splitDescription(text: string): string[] {
  return text.trim().split(':');
}

/** The named macro variables of the dtrace process. */
export function defaultMacros(): Map<string, bigint> {
  const m = new Map<string, bigint>();
  m.set('pid', BigInt(process.pid));
  m.set('ppid', BigInt(process.ppid));
  m.set('uid', BigInt(process.getuid?.() ?? 0));
  m.set('gid', BigInt(process.getgid?.() ?? 0));
  m.set('euid', BigInt(process.geteuid?.() ?? 0));
  m.set('egid', BigInt(process.getegid?.() ?? 0));
  return m;
}

/** Why a description's provider offers nothing here, as a suffix of DTrace's message ('' if it does). */
function providerProblems(p: ProbeDescription, registry: ProbeRegistry): string {
  return registry.problemsFor(p.provider, p.name).map((q) => `: ${q.provider} provider: ${q.reason}`).join('');
}

/**
 * Linux names some system calls after the kernel function that implements them: x86_64's stat,
 * lstat and fstat are newstat, newlstat and newfstat, and so are their syscall probes. When a
 * syscall description matches nothing as written but does with "new" before the function, say
 * so (the DTrace book's and toolkit's stat scripts), rather than leave the call seemingly absent.
 */
function syscallAlias(p: ProbeDescription, registry: ProbeRegistry): string {
  if (p.provider !== 'syscall' || p.function === '' || p.function.startsWith('new')) return '';
  const alias = { ...p, function: `new${p.function}` };
  if (registry.match(alias).length === 0) return '';
  return `: on this kernel that system call is named new${p.function} (try ${describe(alias)})`;
}

/**
 * May a typedef not take this name? D's global identifiers (built-ins, functions, inlines,
 * enumerators) and the globals a declaration named; not a global a clause merely assigned.
 */
function isGlobalIdentifier(cg: CodeGenerator, n: string): boolean {
  return BUILTIN_IDENTS.has(n) || SUBROUTINE_BY_NAME.has(n) || ACTION_PROTOTYPES.has(n) || AGG_FUNCTION_NAMES.has(n)
    || functionKind(n) !== undefined || cg.vars.isDeclaredGlobal(n) || cg.types.inlines.has(n) || cg.types.enumerators.has(n);
}

/** Is this name one D's global identifier table has (libdtrace's pcb_globals) before the script's own? */
function isKnownName(cg: CodeGenerator, n: string): boolean {
  return n === 'NULL' || isGlobalIdentifier(cg, n) || cg.global(n) !== undefined;
}
