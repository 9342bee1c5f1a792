/**
 * The D parser: Chevrotain tokens (lexer.ts) to the AST of ast.ts, following the grammar of
 * libdtrace's dt_grammar.y (C expressions with D's operators, declarations, inlines, translators,
 * providers, probe clauses with predicates, and `if`/`else`).
 *
 * C's typedef-name ambiguity is resolved with gates: a name is a type name when it is one of D's
 * built-in typedefs, was declared by a `typedef` earlier in the script, or the caller's
 * `isTypeName` says so (the semantic pass can answer from BTF/CTF).
 *
 * Errors are DtraceErrors with DTrace's messages and tags; Chevrotain's own messages never leak.
 */
import { EmbeddedActionsParser, EOF, LLkLookaheadStrategy, tokenMatcher, type IOrAlt, type IToken, type OrMethodOpts, type TokenType } from './chevrotain.js';
import type * as A from './ast.js';
import { DtraceError, ErrorTags } from './errors.js';
import * as L from './lexer.js';

export interface ParseOptions {
  /**
   * 'script' (default): a D program file (dtrace -s). A probe description must be followed by a
   * predicate or actions.
   * 'probe-description': text given with dtrace -n/-P/-m/-f; a bare description (`BEGIN`) is a
   * clause with a null body, and outer-scope words are probe descriptions unless exactly a keyword.
   */
  kind?: 'script' | 'probe-description';
  /** Same as kind: 'probe-description' when true. */
  probeSpec?: boolean;
  /**
   * -x pspec (DTRACE_C_PSPEC): outer-scope words lex as probe descriptions, as in -n text, but a
   * script's description still needs a predicate or actions. `#pragma D option pspec` in the
   * text does the same.
   */
  pspec?: boolean;
  /**
   * dtrace -P, -m or -f: the element every description names; a probe ID is refused there
   * ("probe identifier 4 not permitted when specifying functions").
   */
  specifying?: string;
  /**
   * DTrace's lexer acts on each control line as it reads it, so a bad pragma before a syntax
   * error is the error reported: called with each pragma that comes before one, it may throw.
   */
  pragmaBeforeError?: (p: A.Pragma) => void;
  /** Script path (recorded as Program.source); the `file` argument of parse() does the same. */
  file?: string;
  /** Extra type names (e.g. kernel typedefs from BTF) to treat as types in casts and declarations. */
  isTypeName?: (name: string) => boolean;
  /**
   * Names D already knows as identifiers (built-in variables, functions, actions, globals,
   * inlines): DTrace's lexer looks past other identifiers, which shows in a syntax error's text.
   */
  isKnownName?: (name: string) => boolean;
}

/** Typedefs every D program knows (libdtrace's built-in C definitions). */
export const D_BUILTIN_TYPEDEFS: readonly string[] = [
  'int8_t', 'int16_t', 'int32_t', 'int64_t', 'intptr_t', 'ssize_t',
  'uint8_t', 'uint16_t', 'uint32_t', 'uint64_t', 'uchar_t', 'ushort_t', 'uint_t', 'ulong_t',
  'u_longlong_t', 'ptrdiff_t', 'uintptr_t', 'size_t', 'id_t', 'pid_t',
];
const BUILTIN_TYPEDEF_SET = new Set(D_BUILTIN_TYPEDEFS);

/** Binary operator precedence (higher binds tighter), from dt_grammar.y's %left lines. */
const PRECEDENCE: Record<string, number> = {
  '||': 1, '^^': 2, '&&': 3, '|': 4, '^': 5, '&': 6, '==': 7, '!=': 7,
  '<': 8, '<=': 8, '>': 8, '>=': 8, '<<': 9, '>>': 9, '+': 10, '-': 10, '*': 11, '/': 11, '%': 11,
};

/**
 * A row of binary operands and operators (`a + b * c`: a, then +, b, *, c) as the tree that
 * precedence climbing makes: an operator takes as its right operand everything after it that
 * binds tighter, and operators of one level group to the left.
 */
function climb(first: A.Expression, rest: (IToken | A.Expression)[], ends: Map<A.Expression, number>): A.Expression {
  let i = 0; // rest[i] is the next operator, rest[i + 1] its right operand
  const level = (left: A.Expression, minPrec: number): A.Expression => {
    while (i < rest.length) {
      const op = rest[i] as IToken;
      const prec = PRECEDENCE[op.image];
      if (prec < minPrec) break;
      i += 2;
      const right = level(rest[i - 1] as A.Expression, prec + 1);
      // libdtrace builds the node on the token after its last operand (rest[i - 1] now).
      left = { kind: 'Binary', ...at(left), dnLine: ends.get(rest[i - 1] as A.Expression), op: op.image as A.BinaryOperator, left, right };
    }
    return left;
  };
  return level(first, 1);
}

/** Expression kinds that dt_grammar.y's unary_expression produces: valid assignment targets. */
const UNARY_KINDS = new Set([
  'IntegerLiteral', 'FloatLiteral', 'StringLiteral', 'Identifier', 'MacroVariable', 'ThreadLocal',
  'ClauseLocal', 'Aggregation', 'Index', 'Call', 'Member', 'Update', 'Unary', 'SizeofType',
  'SizeofExpression', 'Stringof', 'Offsetof', 'Xlate',
]);


interface Specifiers {
  storage: A.StorageClass | null;
  storageToken?: IToken;
  qualifiers: A.TypeQualifier[];
  words: IToken[];
  specifier: A.TypeSpecifier | null;
  userland: boolean;
  first: IToken | null;
}

/** A parsed declarator: its name and how to wrap the base type into the declared type. */
interface DeclaratorShape {
  name: string | null;
  nameToken: IToken | null;
  apply: (base: A.TypeExpression) => A.TypeExpression;
}

type Suffix =
  | { kind: 'array'; tok: IToken; size: A.Expression | null; keys: A.Parameter[] | null; varargs: boolean }
  | { kind: 'function'; tok: IToken; params: A.Parameter[]; varargs: boolean };

function pos(t: IToken): A.Position {
  const p: A.Position = { line: t.startLine ?? 0, column: t.startColumn ?? 0 };
  const file = (t as IToken & { file?: string }).file;
  if (file !== undefined) p.file = file;
  return p;
}

function at(node: A.Position): A.Position {
  const p: A.Position = { line: node.line, column: node.column };
  if (node.file !== undefined) p.file = node.file;
  return p;
}

/** Marks a syntax error at end of input, whose line parse() fills in (DTrace's last line). */
const AT_END = new WeakSet<DtraceError>();

function syntaxError(t: IToken): DtraceError {
  if (t.tokenType === EOF) {
    const e = new DtraceError(ErrorTags.D_SYNTAX, 'syntax error near end of input');
    AT_END.add(e);
    return e;
  }
  if (L.isLexError(t)) {
    const p = t.payload as L.LexErrorPayload;
    return new DtraceError(p.tag, p.message, { ...pos(t) });
  }
  return new DtraceError(ErrorTags.D_SYNTAX, `syntax error near "${t.image}"`, { ...pos(t) });
}

/**
 * Split `mod`name`, `` `mod`name `` and `` `name `` into name and module: the module is what lies
 * between the optional leading backquote and the last one ('' when no module is named).
 */
function scoped(image: string): { name: string; module?: string } {
  const i = image.lastIndexOf('`');
  if (i < 0) return { name: image };
  return { name: image.slice(i + 1), module: moduleName(image.slice(0, i)) };
}

/** The module of a scope prefix (`` `vmlinux `` or `vmlinux`): without the leading backquote. */
function moduleName(prefix: string): string {
  return prefix.startsWith('`') ? prefix.slice(1) : prefix;
}

/** Canonical C spelling of a list of built-in type words, or null when they do not combine. */
export function canonicalBuiltinType(words: string[]): string | null {
  const count = (w: string) => words.filter((x) => x === w).length;
  const signed = count('signed');
  const unsigned = count('unsigned');
  const short = count('short');
  const long = count('long');
  const char = count('char');
  const int = count('int');
  const flt = count('float');
  const dbl = count('double');
  const voids = count('void');
  const str = count('string');
  if (signed + unsigned > 1 || long > 2 || char + int + flt + dbl + voids + str > 1) return null;
  if (short && long) return null;
  const sign = signed || unsigned;
  if (voids || str || flt) {
    // DTrace checks short against char alone: `short string` is a string
    if (sign || (short && !str) || long) return null;
    return voids ? 'void' : str ? 'string' : 'float';
  }
  if (dbl) {
    if (sign || short || long > 1) return null;
    return long ? 'long double' : 'double';
  }
  if (char) {
    if (short || long) return null;
    return signed ? 'signed char' : unsigned ? 'unsigned char' : 'char';
  }
  const size = short ? 'short' : long === 2 ? 'long long' : long ? 'long' : 'int';
  return unsigned ? (size === 'int' ? 'unsigned int' : `unsigned ${size}`) : size;
}

/** The words that modify a base type rather than name one. */
const ATTRIBUTE_WORDS = new Set(['signed', 'unsigned', 'short', 'long']);
const SIGNINT: [string, string] = ['D_DECL_SIGNINT', 'invalid type declaration: signed and unsigned may only be used with integer type'];
const LONGINT: [string, string] = ['D_DECL_LONGINT', 'invalid type declaration: long and long long may only be used with integer or floating-point type'];

/**
 * Why builtin type words that canonicalBuiltinType() refused make no type, as DTrace says it:
 * two base names are a combination; short/long on char, any attribute on void, signed or
 * unsigned on a floating type are refused by name; any other set of attributes makes a name
 * ("short long ", "long float") that DTrace then fails to resolve.
 */
export function builtinWordsError(words: string[]): [string, string] {
  const bases = words.filter((w) => !ATTRIBUTE_WORDS.has(w));
  if (bases.length > 1) return [ErrorTags.D_DECL_COMBO, 'invalid type combination'];
  const base = bases[0] ?? '';
  const has = (w: string) => words.includes(w);
  if (base === 'char' && (has('short') || has('long'))) return ['D_DECL_CHARATTR', 'invalid type declaration: short and long may not be used with char type'];
  if (base === 'void') return ['D_DECL_VOIDATTR', 'invalid type declaration: attributes may not be used with void type'];
  if ((base === 'float' || base === 'double' || base === 'string') && (has('signed') || has('unsigned'))) return SIGNINT;
  // string is a typedef to DTrace, so no attribute word fits it
  if (base === 'string' && has('long')) return LONGINT;
  const longs = words.filter((w) => w === 'long').length;
  // DTrace's name: its attribute bits in order (a second long makes "long long"), then the base
  const attrs = (has('signed') ? 'signed ' : '') + (has('unsigned') ? 'unsigned ' : '') + (has('short') ? 'short ' : '')
    + (longs === 1 || longs > 2 ? 'long ' : '') + (longs >= 2 ? 'long long ' : '');
  return [ErrorTags.D_UNKNOWN, `failed to resolve type ${attrs}${base}: Unknown type name`];
}

type LLk = InstanceType<typeof LLkLookaheadStrategy>;

/**
 * Chevrotain's LL(k) lookahead, computed for a production the first time the parser reaches it
 * rather than for the whole grammar up front: a one-liner touches a small part of D's grammar,
 * and precomputing every production's lookahead cost dtrace(1) tens of milliseconds at start-up.
 */
class LazyLookahead extends LLkLookaheadStrategy {
  override buildLookaheadForAlternation(options: Parameters<LLk['buildLookaheadForAlternation']>[0]) {
    let built: ReturnType<LLk['buildLookaheadForAlternation']> | undefined;
    const build = () => (built ??= super.buildLookaheadForAlternation(options));
    return function (this: unknown, ...args: unknown[]) {
      return (build() as (...a: unknown[]) => number | undefined).apply(this, args);
    };
  }

  override buildLookaheadForOptional(options: Parameters<LLk['buildLookaheadForOptional']>[0]) {
    let built: ReturnType<LLk['buildLookaheadForOptional']> | undefined;
    const build = () => (built ??= super.buildLookaheadForOptional(options));
    return function (this: unknown) {
      return build().call(this);
    };
  }
}

/**
 * Chevrotain's checks of the grammar itself, skipped at run time (they cost start-up time and
 * find nothing in a grammar that passed them); the tests turn them on (test/helpers/setup.ts).
 */
let validateGrammar = false;

export function checkGrammarWhenBuilt(): void {
  validateGrammar = true;
}

class DParser extends EmbeddedActionsParser {
  /** Script typedef names (grows as typedefs are parsed). */
  typeNames = new Set<string>();
  /** Names declared by typedefs during this parse (to detect that the lexer needs them). */
  declaredTypedefs: string[] = [];
  externalIsTypeName: (name: string) => boolean = () => false;
  /** `struct tag`, `union tag`, `enum tag` the program has defined with a body so far. */
  private definedTags = new Set<string>();
  /** Names the program has assigned so far: variables, never type names in casts. */
  variableNames = new Set<string>();
  probeMode = false;
  specifying: ParseOptions['specifying'];
  private parenthesized = new WeakSet<object>();
  /**
   * The alternatives of the rules every expression passes through, made once: written inline,
   * each call would allocate the array, its objects and their closures again (Chevrotain's
   * advice; a 10,000-clause script spent a quarter of its compile in the garbage collector). Only
   * alternatives that capture nothing of the call but the parser are cached.
   */
  private alts: {
    topLevel?: IOrAlt<A.TopLevel>[]; cast?: OrMethodOpts<A.Expression>; unary?: OrMethodOpts<A.Expression>;
    unaryUpdate?: IOrAlt<IToken>[]; unaryOp?: IOrAlt<IToken>[]; primary?: IOrAlt<A.Expression>[]; selfThis?: IOrAlt<IToken>[];
    assignment?: () => A.Expression; conditional?: () => { consequent: A.Expression; alternate: A.Expression };
  } = {};
  private assignTarget: A.Expression | undefined;

  constructor() {
    super(L.allTokens, {
      recoveryEnabled: false,
      maxLookahead: 3,
      lookaheadStrategy: new LazyLookahead({ maxLookahead: 3 }),
      skipValidations: !validateGrammar,
    });
    this.performSelfAnalysis();
  }

  begin(tokens: IToken[], options: { probeMode: boolean; specifying?: ParseOptions['specifying']; isTypeName: (n: string) => boolean; typeNames: Set<string> }): void {
    this.input = tokens;
    this.probeMode = options.probeMode;
    this.specifying = options.specifying;
    this.externalIsTypeName = options.isTypeName;
    this.typeNames = new Set(options.typeNames);
    this.declaredTypedefs = [];
    this.variableNames = new Set();
    this.definedTags = new Set();
    this.parenthesized = new WeakSet();
  }

  /**
   * A tag's body begins: libdtrace refuses a second definition as soon as it sees the '{'
   * (translators/err.D_DECL_TYPERED.BadTransDecl, whose translator reads as a struct body).
   */
  private defineTag(keyword: string, tag: IToken | null, brace: IToken): void {
    if (tag === null || tag.image.includes('`')) return;
    const key = `${keyword} ${tag.image}`;
    if (this.definedTags.has(key)) throw new DtraceError(ErrorTags.D_DECL_TYPERED, `type redeclared: ${key}`, pos(brace));
    this.definedTags.add(key);
  }

  // -------------------------------------------------------------------------------------------
  // Type-name decisions (used only inside gates and actions)
  // -------------------------------------------------------------------------------------------

  isTypeName(name: string): boolean {
    if (BUILTIN_TYPEDEF_SET.has(name) || this.typeNames.has(name) || this.externalIsTypeName(name)) return true;
    // D`name: a typedef of the program's own (the D module) scoped by its module.
    return name.startsWith('D`') && this.typeNames.has(name.slice(2));
  }

  private is(t: IToken, type: TokenType): boolean {
    return tokenMatcher(t, type);
  }

  /** Does token LA(i) name a type, as DTrace's id_or_type would decide? */
  private identIsType(i: number): boolean {
    const t = this.LA(i);
    if (!this.is(t, L.Identifier)) return false;
    if (!this.isTypeName(t.image)) return false;
    // A type name followed by ++, --, [ or = is taken as a variable (dt_lex.l id_or_type).
    const next = this.LA(i + 1).tokenType;
    return next !== L.PlusPlus && next !== L.MinusMinus && next !== L.LBracket && next !== L.Assign;
  }

  /**
   * The line of the token after the one just consumed: where libdtrace's lexer is when its parser
   * needs a lookahead to build a node (an operator's, a cast's, an assignment's).
   */
  private lookaheadLine(): number {
    // A predicate's closing '/' is lexed with the blanks up to the '{' after it.
    const t = this.LA(1).tokenType === L.PredEnd ? this.LA(2) : this.LA(1);
    if (t.tokenType !== EOF) return t.startLine ?? 0;
    const last = this.LA(0);
    return last.endLine ?? last.startLine ?? 0;
  }

  /**
   * After '(' at LA(1): is this a parenthesised type name (a cast, or sizeof's operand)?
   * Keywords decide at once. A typedef name decides only when the name is not a variable the
   * program has used and what follows it can end an abstract declarator (`*`s and qualifiers, then
   * `)`, `[` or `(`): `(code * 2)` multiplies the variable `code` even where `code` is a kernel
   * typedef.
   */
  private parenthesizedType(): boolean {
    const t = this.LA(2);
    if (!this.is(t, L.Identifier)) return this.startsType(2);
    if (this.variableNames.has(t.image) || !this.identIsType(2)) return false;
    let i = 3;
    while (this.is(this.LA(i), L.Star) || this.is(this.LA(i), L.QualifierKw)) i++;
    const end = this.LA(i).tokenType;
    return end === L.RParen || end === L.LBracket || end === L.LParen;
  }

  /** Can LA(i) begin a type name (specifier or qualifier)? */
  private startsType(i: number): boolean {
    const t = this.LA(i);
    return (
      this.is(t, L.BasicTypeKw) || this.is(t, L.QualifierKw) || this.is(t, L.Kw.struct) ||
      this.is(t, L.Kw.union) || this.is(t, L.Kw.enum) || this.is(t, L.Kw.userland) || this.identIsType(i)
    );
  }

  /** Does LA(i) begin a parameter with a storage class (`int a[register int]`)? */
  private startsParameterClass(i: number): boolean {
    const t = this.LA(i);
    return this.is(t, L.StorageClassKw) && t.image !== 'self' && t.image !== 'this';
  }

  /** May the declaration specifiers continue with LA(1)? */
  private continuesSpecifiers(state: Specifiers, allowStorage: boolean, forceType: boolean): boolean {
    const t = this.LA(1);
    if (this.is(t, L.StorageClassKw)) return allowStorage;
    if (this.is(t, L.QualifierKw) || this.is(t, L.Kw.userland)) return true;
    // Attribute words go with any type (`unsigned struct s`, `uint32_t long`) and a second base
    // type is taken in too: DTrace refuses these combinations by name (baseType), not as syntax.
    if (this.is(t, L.BasicTypeKw)) return true;
    const attributesOnly = state.specifier === null && state.words.every((w) => ATTRIBUTE_WORDS.has(w.image));
    if (this.is(t, L.Kw.struct) || this.is(t, L.Kw.union) || this.is(t, L.Kw.enum)) return state.specifier === null;
    if (this.is(t, L.Identifier)) {
      if (state.words.length === 0) return state.specifier === null && (forceType || this.identIsType(1));
      // `typedef long foo_t` names foo_t again (D_DECL_IDRED), as the reference has it
      return attributesOnly && state.storage !== 'typedef' && this.identIsType(1);
    }
    return false;
  }

  private checkLvalue(target: A.Expression, opTok: IToken): void {
    if (!UNARY_KINDS.has(target.kind) && !this.parenthesized.has(target)) throw syntaxError(opTok);
  }

  // -------------------------------------------------------------------------------------------
  // Program structure
  // -------------------------------------------------------------------------------------------

  /** Top-level items with the source offset where each starts (to merge pragmas in order). */
  program = this.RULE('program', (): { node: A.TopLevel; offset: number }[] => {
    const items: { node: A.TopLevel; offset: number }[] = [];
    this.MANY(() => {
      const offset = this.ACTION(() => this.LA(1).startOffset);
      const node = this.SUBRULE(this.topLevel);
      this.ACTION(() => items.push({ node, offset }));
    });
    return items;
  });

  topLevel = this.RULE('topLevel', (): A.TopLevel => {
    return this.OR(this.alts.topLevel ??= [
      { ALT: () => this.SUBRULE(this.clause) },
      { ALT: () => this.SUBRULE(this.inlineDefinition) },
      { ALT: () => this.SUBRULE(this.translatorDefinition) },
      { ALT: () => this.SUBRULE(this.providerDefinition) },
      { ALT: () => this.SUBRULE(this.declaration) },
    ]);
  });

  clause = this.RULE('clause', (): A.Clause => {
    const probes: A.ProbeDescription[] = [];
    let predicate: A.Expression | null = null;
    let body: A.Statement[] | null = null;
    let predicateSeen = false;
    const first = this.SUBRULE(this.probeDescription);
    this.ACTION(() => probes.push(first));
    this.MANY(() => {
      this.CONSUME(L.Comma);
      const next = this.SUBRULE2(this.probeDescription);
      this.ACTION(() => probes.push(next));
    });
    this.OPTION(() => {
      this.CONSUME(L.PredStart);
      predicate = this.SUBRULE(this.expression);
      this.CONSUME(L.PredEnd);
      predicateSeen = true;
    });
    this.OPTION2(() => {
      body = this.SUBRULE(this.block);
    });
    this.ACTION(() => {
      if (body === null && predicateSeen) {
        throw new DtraceError(ErrorTags.D_SYNTAX, 'expected actions { } following probe description and predicate', at(predicate!));
      }
      if (body === null && !this.probeMode) {
        throw new DtraceError(ErrorTags.D_SYNTAX, 'expected predicate and/or actions following probe description', at(first));
      }
    });
    // libdtrace checks a clause's predicate on its node, built on the closing '}'.
    return this.ACTION(() => ({ kind: 'Clause', ...at(first), ...(body !== null ? { dnLine: this.LA(0).startLine } : {}), probes, predicate, body }) as A.Clause);
  });

  probeDescription = this.RULE('probeDescription', (): A.ProbeDescription => {
    return this.OR([
      {
        ALT: () => {
          const t = this.CONSUME(L.ProbeSpec);
          return this.ACTION(() => splitProbeDescription(t.image, pos(t)));
        },
      },
      {
        ALT: () => {
          const t = this.CONSUME(L.IntegerLiteral);
          return this.ACTION(() => {
            const v = t.payload as L.IntegerValue | L.LexErrorPayload;
            if ('tag' in v) throw new DtraceError(v.tag, v.message, pos(t));
            if (this.specifying) {
              throw new DtraceError(ErrorTags.D_PDESC_INVAL, `probe identifier ${v.value} not permitted when specifying ${this.specifying}`, pos(t));
            }
            return {
              kind: 'ProbeDescription', ...pos(t), text: t.image, instance: 'host', provider: '',
              module: '', function: '', name: '', id: Number(v.value),
            } as A.ProbeDescription;
          });
        },
      },
    ]);
  });

  // -------------------------------------------------------------------------------------------
  // Statements
  // -------------------------------------------------------------------------------------------

  /** `{ statement_list }`: statements end with ';' except (optionally) the last expression. */
  block = this.RULE('block', (): A.Statement[] => {
    const stmts: A.Statement[] = [];
    this.CONSUME(L.LBrace);
    this.MANY(() => {
      this.OR([
        { ALT: () => this.CONSUME(L.Semi) },
        {
          ALT: () => {
            const s = this.SUBRULE(this.ifStatement);
            this.ACTION(() => stmts.push(s));
          },
        },
        {
          ALT: () => {
            const e = this.SUBRULE(this.expression);
            let semi = false;
            this.OPTION(() => {
              this.CONSUME2(L.Semi);
              semi = true;
            });
            this.ACTION(() => {
              if (!semi && this.LA(1).tokenType !== L.RBrace) throw syntaxError(this.LA(1));
              stmts.push({ kind: 'ExpressionStatement', ...at(e), expression: e });
            });
          },
        },
      ]);
    });
    this.CONSUME(L.RBrace);
    return stmts;
  });

  ifStatement = this.RULE('ifStatement', (): A.IfStatement => {
    const ifTok = this.CONSUME(L.Kw.if);
    this.CONSUME(L.LParen);
    const test = this.SUBRULE(this.expression);
    this.CONSUME(L.RParen);
    const consequent = this.SUBRULE(this.statementOrBlock);
    let alternate: A.Statement[] | null = null;
    this.OPTION(() => {
      this.CONSUME(L.Kw.else);
      alternate = this.SUBRULE2(this.statementOrBlock);
    });
    return this.ACTION(() => ({ kind: 'IfStatement', ...pos(ifTok), test, consequent, alternate }) as A.IfStatement);
  });

  statementOrBlock = this.RULE('statementOrBlock', (): A.Statement[] => {
    return this.OR([
      { ALT: () => this.SUBRULE(this.block) },
      {
        ALT: () => {
          this.CONSUME(L.Semi);
          return [];
        },
      },
      {
        ALT: () => {
          const s = this.SUBRULE(this.ifStatement);
          return this.ACTION(() => [s]);
        },
      },
      {
        ALT: () => {
          const e = this.SUBRULE(this.expression);
          this.CONSUME2(L.Semi);
          return this.ACTION(() => [{ kind: 'ExpressionStatement', ...at(e), expression: e } as A.Statement]);
        },
      },
    ]);
  });

  // -------------------------------------------------------------------------------------------
  // Expressions
  // -------------------------------------------------------------------------------------------

  expression = this.RULE('expression', (): A.Expression => {
    let left = this.SUBRULE(this.assignment);
    this.MANY(() => {
      this.CONSUME(L.Comma);
      const right = this.SUBRULE2(this.assignment);
      this.ACTION(() => {
        left = { kind: 'Comma', ...at(left), dnLine: this.lookaheadLine(), left, right };
      });
    });
    return left;
  });

  // assignment and conditional: their optional tails are made once (this.alts), so an expression
  // without one allocates nothing for it. The assignment's target reaches its tail through
  // assignTarget, which the tail reads before it parses anything.
  assignment = this.RULE('assignment', (): A.Expression => {
    const target = this.SUBRULE(this.conditional);
    this.assignTarget = target;
    const assigned = this.OPTION(this.alts.assignment ??= () => {
      const result = this.assignTarget!;
      const op = this.CONSUME(L.AssignOp);
      this.ACTION(() => this.checkLvalue(result, op));
      const value = this.SUBRULE(this.assignment);
      return this.ACTION(() => {
        if (result.kind === 'Identifier' && result.module === undefined) this.variableNames.add(result.name);
        return { kind: 'Assignment', ...at(result), dnLine: this.lookaheadLine(), op: op.image as A.AssignmentOperator, target: result, value } as A.Expression;
      });
    });
    return assigned ?? target;
  });

  conditional = this.RULE('conditional', (): A.Expression => {
    const test = this.SUBRULE(this.binary);
    const branches = this.OPTION(this.alts.conditional ??= () => {
      this.CONSUME(L.Question);
      const consequent = this.SUBRULE(this.expression);
      this.CONSUME(L.Colon);
      const alternate = this.SUBRULE(this.conditional);
      return { consequent, alternate };
    });
    if (branches === undefined) return test;
    return this.ACTION(() => ({ kind: 'Conditional', ...at(test), dnLine: this.lookaheadLine(), test, consequent: branches.consequent, alternate: branches.alternate }) as A.Expression);
  });

  /**
   * The left-associative binary operators: their operands in a row, then the tree by precedence
   * climbing (climb). One rule call per row rather than one per operator and precedence level.
   */
  binary = this.RULE('binary', (): A.Expression => {
    const first = this.SUBRULE(this.cast);
    let rest: (IToken | A.Expression)[] | null = null;
    const ends = new Map<A.Expression, number>();
    this.MANY(() => {
      const op = this.CONSUME(L.BinaryOp);
      const right = this.SUBRULE2(this.cast);
      this.ACTION(() => {
        (rest ??= []).push(op, right);
        ends.set(right, this.lookaheadLine());
      });
    });
    return rest === null ? first : this.ACTION(() => climb(first, rest!, ends));
  });

  cast = this.RULE('cast', (): A.Expression => {
    return this.OR(this.alts.cast ??= {
      IGNORE_AMBIGUITIES: true,
      DEF: [
        {
          GATE: () => this.LA(1).tokenType === L.LParen && this.parenthesizedType(),
          ALT: () => {
            const lp = this.CONSUME(L.LParen);
            const type = this.SUBRULE(this.typeName);
            this.CONSUME(L.RParen);
            const operand = this.SUBRULE(this.cast);
            return this.ACTION(() => ({ kind: 'Cast', ...pos(lp), dnLine: this.lookaheadLine(), type, operand }) as A.Expression);
          },
        },
        { ALT: () => this.SUBRULE(this.unary) },
      ],
    });
  });

  unary = this.RULE('unary', (): A.Expression => {
    return this.OR(this.alts.unary ??= {
      IGNORE_AMBIGUITIES: true,
      DEF: [
        {
          ALT: () => {
            const op = this.OR2(this.alts.unaryUpdate ??= [{ ALT: () => this.CONSUME(L.PlusPlus) }, { ALT: () => this.CONSUME(L.MinusMinus) }]);
            const operand = this.SUBRULE(this.unary);
            return this.ACTION(() => ({ kind: 'Update', ...pos(op), dnLine: this.lookaheadLine(), op: op.image as '++' | '--', prefix: true, operand }) as A.Expression);
          },
        },
        {
          ALT: () => {
            const op = this.OR3(this.alts.unaryOp ??= [
              { ALT: () => this.CONSUME(L.Amp) },
              { ALT: () => this.CONSUME(L.Star) },
              { ALT: () => this.CONSUME(L.Plus) },
              { ALT: () => this.CONSUME(L.Minus) },
              { ALT: () => this.CONSUME(L.Tilde) },
              { ALT: () => this.CONSUME(L.Bang) },
            ]);
            const operand = this.SUBRULE(this.cast);
            return this.ACTION(() => ({ kind: 'Unary', ...pos(op), dnLine: this.lookaheadLine(), op: op.image as A.Unary['op'], operand }) as A.Expression);
          },
        },
        {
          ALT: () => {
            const kw = this.CONSUME(L.Kw.sizeof);
            return this.OR4({
              IGNORE_AMBIGUITIES: true,
              DEF: [
                {
                  GATE: () => this.LA(1).tokenType === L.LParen && this.parenthesizedType(),
                  ALT: () => {
                    this.CONSUME2(L.LParen);
                    const type = this.SUBRULE2(this.typeName);
                    this.CONSUME2(L.RParen);
                    return this.ACTION(() => ({ kind: 'SizeofType', ...pos(kw), type }) as A.Expression);
                  },
                },
                {
                  ALT: () => {
                    const operand = this.SUBRULE2(this.unary);
                    return this.ACTION(() => ({ kind: 'SizeofExpression', ...pos(kw), operand }) as A.Expression);
                  },
                },
              ],
            });
          },
        },
        {
          ALT: () => {
            const kw = this.CONSUME(L.Kw.stringof);
            const operand = this.SUBRULE3(this.unary);
            return this.ACTION(() => ({ kind: 'Stringof', ...pos(kw), operand }) as A.Expression);
          },
        },
        { ALT: () => this.SUBRULE(this.postfix) },
      ],
    });
  });

  postfix = this.RULE('postfix', (): A.Expression => {
    let result = this.SUBRULE(this.primary);
    this.MANY(() => {
      this.OR([
        {
          ALT: () => {
            this.CONSUME(L.LBracket);
            const keys = this.SUBRULE(this.argumentList);
            const rb = this.CONSUME(L.RBracket);
            this.ACTION(() => {
              if (result.kind === 'Aggregation' && result.keys === null && !this.parenthesized.has(result)) {
                result = { ...result, keys };
              } else {
                result = { kind: 'Index', ...at(result), dnLine: rb.startLine, base: result, keys };
              }
            });
          },
        },
        {
          ALT: () => {
            this.CONSUME(L.LParen);
            let args: A.Expression[] = [];
            this.OPTION(() => {
              args = this.SUBRULE2(this.argumentList);
            });
            const rp = this.CONSUME(L.RParen);
            this.ACTION(() => {
              result = { kind: 'Call', ...at(result), callee: result, args, closeLine: rp.startLine };
            });
          },
        },
        {
          ALT: () => {
            const arrow = this.OR2([{ ALT: () => this.CONSUME(L.Dot) }, { ALT: () => this.CONSUME(L.Arrow) }]);
            const member = this.CONSUME(L.Identifier);
            this.ACTION(() => {
              result = { kind: 'Member', ...at(result), dnLine: arrow.startLine, object: result, member: member.image, arrow: arrow.tokenType === L.Arrow };
            });
          },
        },
        {
          ALT: () => {
            const op = this.OR3([{ ALT: () => this.CONSUME(L.PlusPlus) }, { ALT: () => this.CONSUME(L.MinusMinus) }]);
            this.ACTION(() => {
              result = { kind: 'Update', ...at(result), dnLine: op.startLine, op: op.image as '++' | '--', prefix: false, operand: result };
            });
          },
        },
      ]);
    });
    return result;
  });

  argumentList = this.RULE('argumentList', (): A.Expression[] => {
    const list: A.Expression[] = [];
    const first = this.SUBRULE(this.assignment);
    this.ACTION(() => list.push(first));
    this.MANY(() => {
      this.CONSUME(L.Comma);
      const next = this.SUBRULE2(this.assignment);
      this.ACTION(() => list.push(next));
    });
    return list;
  });

  primary = this.RULE('primary', (): A.Expression => {
    return this.OR(this.alts.primary ??= [
      {
        ALT: () => {
          const t = this.CONSUME(L.Identifier);
          return this.ACTION(() => ({ kind: 'Identifier', ...pos(t), ...scoped(t.image) }) as A.Expression);
        },
      },
      {
        ALT: () => {
          const t = this.CONSUME(L.AggregationName);
          return this.ACTION(() => ({ kind: 'Aggregation', ...pos(t), name: t.image === '@' ? '_' : t.image.slice(1), keys: null }) as A.Expression);
        },
      },
      {
        ALT: () => {
          const t = this.CONSUME(L.IntegerLiteral);
          return this.ACTION(() => {
            const v = t.payload as L.IntegerValue | L.LexErrorPayload;
            if ('tag' in v) throw new DtraceError(v.tag, v.message, pos(t));
            return { kind: 'IntegerLiteral', ...pos(t), value: v.value, text: t.image, suffix: v.suffix, decimal: v.decimal, isChar: false } as A.Expression;
          });
        },
      },
      {
        ALT: () => {
          const t = this.CONSUME(L.CharLiteral);
          return this.ACTION(() => {
            const v = t.payload as bigint | L.LexErrorPayload;
            if (typeof v !== 'bigint') throw new DtraceError(v.tag, v.message, pos(t));
            return { kind: 'IntegerLiteral', ...pos(t), value: v, text: t.image, suffix: '', decimal: true, isChar: true } as A.Expression;
          });
        },
      },
      {
        ALT: () => {
          const t = this.CONSUME(L.FloatLiteral);
          return this.ACTION(() => ({ kind: 'FloatLiteral', ...pos(t), value: parseFloat(t.image.replace(/[fFlL]$/, '')), text: t.image }) as A.Expression);
        },
      },
      {
        ALT: () => {
          const t = this.CONSUME(L.StringLiteral);
          return this.ACTION(() => ({ kind: 'StringLiteral', ...pos(t), ...L.stringValue(t.image) }) as A.Expression);
        },
      },
      {
        ALT: () => {
          const t = this.CONSUME(L.MacroVariable);
          return this.ACTION(() => {
            const asString = t.image.startsWith('$$');
            return { kind: 'MacroVariable', ...pos(t), name: t.image.slice(asString ? 2 : 1), asString } as A.Expression;
          });
        },
      },
      {
        ALT: () => {
          const kw = this.OR2(this.alts.selfThis ??= [{ ALT: () => this.CONSUME(L.Kw.self) }, { ALT: () => this.CONSUME(L.Kw.this) }]);
          let name: IToken | null = null;
          let arrow: IToken | null = null;
          this.OPTION(() => {
            arrow = this.CONSUME(L.Arrow);
            name = this.CONSUME2(L.Identifier);
          });
          return this.ACTION(() => {
            const self = kw.image === 'self';
            if (name === null) return { kind: 'Identifier', ...pos(kw), name: kw.image } as A.Expression;
            // As for a member, libdtrace's node for self->x is built on the '->'.
            return { kind: self ? 'ThreadLocal' : 'ClauseLocal', ...pos(kw), dnLine: (arrow as unknown as IToken).startLine, name: (name as IToken).image } as A.Expression;
          });
        },
      },
      {
        ALT: () => {
          this.CONSUME(L.LParen);
          const e = this.SUBRULE(this.expression);
          this.CONSUME(L.RParen);
          this.ACTION(() => this.parenthesized.add(e));
          return e;
        },
      },
      {
        ALT: () => {
          const kw = this.CONSUME(L.Kw.offsetof);
          this.CONSUME2(L.LParen);
          // A name offsetof( ) is given must be a type already (an unknown one is a syntax error).
          const type = this.SUBRULE(this.typeName, { ARGS: [false] });
          this.CONSUME(L.Comma);
          const member = this.CONSUME3(L.Identifier);
          this.CONSUME2(L.RParen);
          return this.ACTION(() => ({ kind: 'Offsetof', ...pos(kw), type, member: member.image }) as A.Expression);
        },
      },
      {
        ALT: () => {
          const kw = this.CONSUME(L.Kw.xlate);
          this.CONSUME(L.Less);
          const type = this.SUBRULE2(this.typeName, { ARGS: [true] });
          this.CONSUME(L.Greater);
          this.CONSUME3(L.LParen);
          const operand = this.SUBRULE2(this.expression);
          const rp = this.CONSUME3(L.RParen);
          return this.ACTION(() => ({ kind: 'Xlate', ...pos(kw), dnLine: rp.startLine, type, operand }) as A.Expression);
        },
      },
    ]);
  });

  // -------------------------------------------------------------------------------------------
  // Declarations and types
  // -------------------------------------------------------------------------------------------

  /**
   * Declaration specifiers; storage classes only when allowStorage. With forceType, where the
   * grammar requires a type (members, parameters, translators, xlate), a leading name is
   * taken as a typedef name even when not known to be one.
   */
  specifiers = this.RULE('specifiers', (allowStorage: boolean = true, forceType: boolean = false): Specifiers => {
    const state: Specifiers = { storage: null, qualifiers: [], words: [], specifier: null, userland: false, first: null };
    this.AT_LEAST_ONE({
      GATE: () => this.continuesSpecifiers(state, allowStorage, forceType),
      DEF: () => {
        this.ACTION(() => {
          state.first ??= this.LA(1);
        });
        this.OR([
          {
            ALT: () => {
              const t = this.CONSUME(L.StorageClassKw);
              this.ACTION(() => {
                if (state.storage !== null) throw new DtraceError('D_DECL_CLASS', 'only one storage class allowed in a declaration', pos(t));
                state.storage = t.image as A.StorageClass;
                state.storageToken = t;
              });
            },
          },
          {
            ALT: () => {
              const t = this.CONSUME(L.QualifierKw);
              this.ACTION(() => state.qualifiers.push(t.image as A.TypeQualifier));
            },
          },
          {
            ALT: () => {
              this.CONSUME(L.Kw.userland);
              this.ACTION(() => {
                state.userland = true;
              });
            },
          },
          {
            ALT: () => {
              const t = this.CONSUME(L.BasicTypeKw);
              this.ACTION(() => state.words.push(t));
            },
          },
          {
            ALT: () => {
              const s = this.SUBRULE(this.structSpecifier);
              this.ACTION(() => {
                state.specifier = s;
              });
            },
          },
          {
            ALT: () => {
              const s = this.SUBRULE(this.enumSpecifier);
              this.ACTION(() => {
                state.specifier = s;
              });
            },
          },
          {
            ALT: () => {
              const t = this.CONSUME(L.Identifier);
              // `vmlinux`struct task_struct` is one identifier to DTrace's lexer, not a type, so
              // the word after it is a syntax error there (`struct vmlinux`task_struct` is the form).
              this.ACTION(() => {
                state.specifier = { kind: 'TypedefName', ...pos(t), ...scoped(t.image) };
              });
            },
          },
        ]);
      },
    });
    return state;
  });

  structSpecifier = this.RULE('structSpecifier', (): A.StructSpecifier => {
    const kw = this.OR([{ ALT: () => this.CONSUME(L.Kw.struct) }, { ALT: () => this.CONSUME(L.Kw.union) }]);
    let tag: IToken | null = null;
    let members: A.StructMember[] | null = null;
    this.OPTION(() => {
      tag = this.CONSUME(L.Identifier);
    });
    let brace: IToken | null = null;
    this.OPTION2(() => {
      brace = this.CONSUME(L.LBrace);
      this.ACTION(() => this.defineTag(kw.image, tag, brace!));
      members = [];
      this.AT_LEAST_ONE(() => {
        const some = this.SUBRULE(this.structDeclaration);
        this.ACTION(() => members!.push(...some));
      });
      this.CONSUME(L.RBrace);
    });
    return this.ACTION(() => {
      if (tag === null && members === null) throw syntaxError(this.LA(1));
      const t = tag as IToken | null;
      return {
        kind: 'StructType', ...pos(kw), ...(brace ? { dnLine: (brace as IToken).startLine } : {}), union: kw.image === 'union',
        ...(t ? { tag: scoped(t.image).name, ...(t.image.includes('`') ? { module: scoped(t.image).module } : {}) } : { tag: null }),
        members,
      } as A.StructSpecifier;
    });
  });

  structDeclaration = this.RULE('structDeclaration', (): A.StructMember[] => {
    const specs = this.SUBRULE(this.specifiers, { ARGS: [false, true] });
    const members: A.StructMember[] = [];
    const first = this.SUBRULE(this.structDeclarator, { ARGS: [specs] });
    this.ACTION(() => members.push(first));
    this.MANY(() => {
      this.CONSUME(L.Comma);
      const next = this.SUBRULE2(this.structDeclarator, { ARGS: [specs] });
      this.ACTION(() => members.push(next));
    });
    this.CONSUME(L.Semi);
    return members;
  });

  structDeclarator = this.RULE('structDeclarator', (specs?: Specifiers): A.StructMember => {
    let shape: DeclaratorShape | null = null;
    let bits: A.Expression | null = null;
    this.OPTION({
      GATE: () => this.LA(1).tokenType !== L.Colon,
      DEF: () => {
        shape = this.SUBRULE(this.declarator, { ARGS: [false] });
      },
    });
    this.OPTION2(() => {
      this.CONSUME(L.Colon);
      bits = this.SUBRULE(this.conditional);
    });
    return this.ACTION(() => {
      const base = this.baseType(specs!);
      const s = shape as DeclaratorShape | null;
      const where = s?.nameToken ? pos(s.nameToken) : at(base);
      return { kind: 'StructMember', ...where, name: s?.name ?? null, type: s ? s.apply(base) : base, bits } as A.StructMember;
    });
  });

  enumSpecifier = this.RULE('enumSpecifier', (): A.EnumSpecifier => {
    const kw = this.CONSUME(L.Kw.enum);
    let tag: IToken | null = null;
    let enumerators: A.Enumerator[] | null = null;
    this.OPTION(() => {
      tag = this.CONSUME(L.Identifier);
    });
    let brace: IToken | null = null;
    this.OPTION2(() => {
      brace = this.CONSUME(L.LBrace);
      this.ACTION(() => this.defineTag('enum', tag, brace!));
      enumerators = [];
      const first = this.SUBRULE(this.enumerator);
      this.ACTION(() => enumerators!.push(first));
      // no comma after the last enumerator: DTrace's grammar has none
      this.MANY(() => {
        this.CONSUME(L.Comma);
        const next = this.SUBRULE2(this.enumerator);
        this.ACTION(() => enumerators!.push(next));
      });
      this.CONSUME(L.RBrace);
    });
    return this.ACTION(() => {
      if (tag === null && enumerators === null) throw syntaxError(this.LA(1));
      const t = tag as IToken | null;
      return {
        kind: 'EnumType', ...pos(kw), ...(brace ? { dnLine: (brace as IToken).startLine } : {}),
        ...(t ? { tag: scoped(t.image).name, ...(t.image.includes('`') ? { module: scoped(t.image).module } : {}) } : { tag: null }),
        enumerators,
      } as A.EnumSpecifier;
    });
  });

  enumerator = this.RULE('enumerator', (): A.Enumerator => {
    // A type name is lexed as one (dt_lex.l id_or_type), which no enumerator may be.
    const typeName = this.ACTION(() => this.identIsType(1));
    const name = this.CONSUME(L.Identifier);
    this.ACTION(() => {
      if (typeName) throw syntaxError(name);
    });
    let value: A.Expression | null = null;
    this.OPTION(() => {
      this.CONSUME(L.Assign);
      value = this.SUBRULE(this.conditional);
    });
    // libdtrace defines the enumerator once it sees the ',' or '}' after it.
    return this.ACTION(() => ({ kind: 'Enumerator', ...pos(name), dnLine: this.lookaheadLine(), name: name.image, value }) as A.Enumerator);
  });

  /**
   * A declarator: pointers, then a name or a parenthesised declarator, then array and function
   * suffixes. `abstractOnly` forbids the name (type names); otherwise the name is optional only
   * when `nameOptional` (parameters).
   */
  declarator = this.RULE('declarator', (abstractOnly: boolean = false, nameOptional: boolean = false): DeclaratorShape => {
    const pointers: { tok: IToken; qualifiers: A.TypeQualifier[] }[] = [];
    let nameToken: IToken | null = null;
    let inner: DeclaratorShape | null = null;
    const suffixes: Suffix[] = [];
    this.MANY(() => {
      const star = this.CONSUME(L.Star);
      const qualifiers: A.TypeQualifier[] = [];
      this.MANY2(() => {
        const q = this.CONSUME(L.QualifierKw);
        this.ACTION(() => qualifiers.push(q.image as A.TypeQualifier));
      });
      this.ACTION(() => pointers.push({ tok: star, qualifiers }));
    });
    this.OPTION({
      GATE: () => !abstractOnly && this.is(this.LA(1), L.Identifier),
      DEF: () => {
        nameToken = this.CONSUME(L.Identifier);
      },
    });
    this.OPTION2({
      GATE: () => nameToken === null && this.LA(1).tokenType === L.LParen && this.startsNestedDeclarator(abstractOnly),
      DEF: () => {
        this.CONSUME(L.LParen);
        inner = this.SUBRULE(this.declarator, { ARGS: [abstractOnly, nameOptional] });
        this.CONSUME(L.RParen);
      },
    });
    this.MANY3(() => {
      this.OR([
        {
          ALT: () => {
            const tok = this.CONSUME(L.LBracket);
            let keys: A.Parameter[] | null = null;
            let varargs = false;
            let size: A.Expression | null = null;
            this.OPTION3({
              // a tuple signature: a type, a parameter's storage class or `...`
              GATE: () => this.startsType(1) || this.startsParameterClass(1) || this.LA(1).tokenType === L.Ellipsis,
              DEF: () => {
                const list = this.SUBRULE(this.parameterList);
                this.ACTION(() => {
                  keys = list.params;
                  varargs = list.varargs;
                });
              },
            });
            this.OPTION4({
              GATE: () => keys === null && this.LA(1).tokenType !== L.RBracket,
              DEF: () => {
                size = this.SUBRULE(this.conditional);
              },
            });
            this.CONSUME(L.RBracket);
            this.ACTION(() => suffixes.push({ kind: 'array', tok, size, keys, varargs }));
          },
        },
        {
          ALT: () => {
            const tok = this.CONSUME2(L.LParen);
            let list: { params: A.Parameter[]; varargs: boolean } = { params: [], varargs: false };
            this.OPTION5({
              GATE: () => this.LA(1).tokenType !== L.RParen,
              DEF: () => {
                list = this.SUBRULE2(this.parameterList);
              },
            });
            this.CONSUME2(L.RParen);
            this.ACTION(() => suffixes.push({ kind: 'function', tok, params: list.params, varargs: list.varargs }));
          },
        },
      ]);
    });
    return this.ACTION(() => {
      const innerShape = inner as DeclaratorShape | null;
      const nameTok = nameToken as IToken | null;
      if (!abstractOnly && !nameOptional && nameTok === null && innerShape === null) throw syntaxError(this.LA(1));
      const apply = (base: A.TypeExpression): A.TypeExpression => {
        let t = base;
        for (const p of pointers) t = { kind: 'PointerType', ...pos(p.tok), to: t, qualifiers: p.qualifiers };
        for (let i = suffixes.length - 1; i >= 0; i--) {
          const s = suffixes[i];
          t = s.kind === 'array'
            ? { kind: 'ArrayType', ...pos(s.tok), of: t, size: s.size, keys: s.keys, ...(s.varargs ? { varargs: true } : {}) }
            : { kind: 'FunctionType', ...pos(s.tok), returns: t, params: s.params, varargs: s.varargs };
        }
        return innerShape ? innerShape.apply(t) : t;
      };
      return {
        name: nameTok ? nameTok.image : innerShape ? innerShape.name : null,
        nameToken: nameTok ?? innerShape?.nameToken ?? null,
        apply,
      };
    });
  });

  /** After '(' in a declarator: a nested declarator (not a parameter list)? */
  private startsNestedDeclarator(abstractOnly: boolean): boolean {
    const t = this.LA(2);
    if (t.tokenType === L.Star || t.tokenType === L.LParen || t.tokenType === L.LBracket) return true;
    return !abstractOnly && this.is(t, L.Identifier) && !this.identIsType(2);
  }

  parameterList = this.RULE('parameterList', (): { params: A.Parameter[]; varargs: boolean } => {
    const params: A.Parameter[] = [];
    let varargs = false;
    this.OR([
      {
        ALT: () => {
          this.CONSUME(L.Ellipsis);
          varargs = true;
        },
      },
      {
        ALT: () => {
          const first = this.SUBRULE(this.parameter);
          this.ACTION(() => params.push(first));
          this.MANY({
            GATE: () => !varargs,
            DEF: () => {
              this.CONSUME(L.Comma);
              this.OR2([
                {
                  ALT: () => {
                    this.CONSUME2(L.Ellipsis);
                    varargs = true;
                  },
                },
                {
                  ALT: () => {
                    const next = this.SUBRULE2(this.parameter);
                    this.ACTION(() => params.push(next));
                  },
                },
              ]);
            },
          });
        },
      },
    ]);
    return { params, varargs };
  });

  parameter = this.RULE('parameter', (): A.Parameter => {
    const specs = this.SUBRULE(this.specifiers, { ARGS: [true, true] });
    const shape = this.SUBRULE(this.declarator, { ARGS: [false, true] });
    return this.ACTION(() => {
      // A parameter may be `register` (C's one storage class for parameters); self and this
      // are no storage class there to DTrace's grammar.
      if (specs.storage === 'self' || specs.storage === 'this') throw syntaxError(specs.storageToken!);
      if (specs.storage !== null && specs.storage !== 'register')
        throw new DtraceError('D_DECL_PARMCLASS', 'inappropriate storage class for function or associative array parameter', pos(specs.storageToken!));
      const base = this.baseType(specs);
      return { kind: 'Parameter', ...at(base), name: shape.name, type: shape.apply(base) } as A.Parameter;
    });
  });

  /** A type name; forceType where only a type can appear (see specifiers). */
  typeName = this.RULE('typeName', (forceType: boolean = false): A.TypeName => {
    const specs = this.SUBRULE(this.specifiers, { ARGS: [false, forceType] });
    const shape = this.SUBRULE(this.declarator, { ARGS: [true, true] });
    return this.ACTION(() => {
      const base = this.baseType(specs);
      return { kind: 'TypeName', ...at(base), type: shape.apply(base) } as A.TypeName;
    });
  });

  /** `specifiers [declarator (, declarator)*] ;` at the outer scope. */
  declaration = this.RULE('declaration', (): A.Declaration => {
    const specs = this.SUBRULE(this.specifiers, { ARGS: [true] });
    const shapes: DeclaratorShape[] = [];
    this.OPTION({
      GATE: () => this.LA(1).tokenType !== L.DeclEnd,
      DEF: () => {
        const first = this.SUBRULE(this.declarator, { ARGS: [false, false] });
        this.ACTION(() => shapes.push(first));
        this.MANY(() => {
          this.CONSUME(L.Comma);
          const next = this.SUBRULE2(this.declarator, { ARGS: [false, false] });
          this.ACTION(() => shapes.push(next));
        });
      },
    });
    this.CONSUME(L.DeclEnd);
    return this.ACTION(() => {
      const base = this.baseType(specs);
      const declarators: A.Declarator[] = shapes.map((s) => ({
        kind: 'Declarator', ...(s.nameToken ? pos(s.nameToken) : at(base)), name: s.name!, type: s.apply(base),
      }));
      if (specs.storage === 'typedef') {
        for (const d of declarators) {
          this.typeNames.add(d.name);
          this.declaredTypedefs.push(d.name);
        }
      } else if (specs.storage !== 'self' && specs.storage !== 'this') {
        for (const d of declarators) this.variableNames.add(d.name);
      }
      return { kind: 'Declaration', ...pos(specs.first!), storage: specs.storage, base, declarators } as A.Declaration;
    });
  });

  inlineDefinition = this.RULE('inlineDefinition', (): A.InlineDefinition => {
    const kw = this.CONSUME(L.Kw.inline);
    const specs = this.SUBRULE(this.specifiers, { ARGS: [true] });
    const shape = this.SUBRULE(this.declarator, { ARGS: [false, false] });
    this.CONSUME(L.Assign);
    const value = this.SUBRULE(this.assignment);
    this.CONSUME(L.DeclEnd);
    return this.ACTION(() => {
      const base = this.baseType(specs);
      return { kind: 'InlineDefinition', ...pos(kw), name: shape.name!, type: shape.apply(base), value } as A.InlineDefinition;
    });
  });

  translatorDefinition = this.RULE('translatorDefinition', (): A.TranslatorDefinition => {
    const kw = this.CONSUME(L.Kw.translator);
    const output = this.SUBRULE(this.typeName, { ARGS: [true] });
    this.CONSUME(L.Less);
    const input = this.SUBRULE2(this.typeName, { ARGS: [true] });
    const param = this.CONSUME(L.Identifier);
    this.CONSUME(L.Greater);
    this.CONSUME(L.LBrace);
    const members: A.TranslatorMember[] = [];
    this.MANY(() => {
      const name = this.CONSUME2(L.Identifier);
      // `m.field = e;`: a member of a struct-valued member (a library extension, see translators.ts).
      const path: string[] = [];
      this.MANY2(() => {
        this.CONSUME(L.Dot);
        path.push(this.CONSUME3(L.Identifier).image);
      });
      this.CONSUME(L.Assign);
      const value = this.SUBRULE(this.assignment);
      this.CONSUME(L.Semi);
      this.ACTION(() => members.push({ kind: 'TranslatorMember', ...pos(name), name: [name.image, ...path].join('.'), value }));
    });
    this.CONSUME(L.RBrace);
    const end = this.CONSUME(L.DeclEnd);
    return this.ACTION(() => ({ kind: 'TranslatorDefinition', ...pos(kw), output, input, param: param.image, members, end: pos(end) }) as A.TranslatorDefinition);
  });

  providerDefinition = this.RULE('providerDefinition', (): A.ProviderDefinition => {
    const kw = this.CONSUME(L.Kw.provider);
    const name = this.CONSUME(L.Identifier);
    this.CONSUME(L.LBrace);
    const probes: A.ProviderProbe[] = [];
    this.MANY(() => {
      const probe = this.SUBRULE(this.providerProbe);
      this.ACTION(() => probes.push(probe));
    });
    this.CONSUME(L.RBrace);
    this.CONSUME(L.DeclEnd);
    return this.ACTION(() => ({ kind: 'ProviderDefinition', ...pos(kw), name: name.image, probes }) as A.ProviderDefinition);
  });

  providerProbe = this.RULE('providerProbe', (): A.ProviderProbe => {
    const kw = this.CONSUME(L.Kw.probe);
    const name = this.CONSUME(L.Identifier);
    const params = this.SUBRULE(this.prototype);
    let translated: A.Parameter[] | null = null;
    this.OPTION(() => {
      this.CONSUME(L.Colon);
      translated = this.SUBRULE2(this.prototype);
    });
    this.CONSUME(L.Semi);
    return this.ACTION(() => ({ kind: 'ProviderProbe', ...pos(kw), name: name.image, params, translated }) as A.ProviderProbe);
  });

  /** `( [parameter_type_list] )` of a provider probe. */
  prototype = this.RULE('prototype', (): A.Parameter[] => {
    this.CONSUME(L.LParen);
    let params: A.Parameter[] = [];
    this.OPTION(() => {
      params = this.SUBRULE(this.parameterList).params;
    });
    this.CONSUME(L.RParen);
    return params;
  });

  /** The base NamedType of a set of specifiers (builtin words, typedef, struct or enum). */
  private baseType(specs: Specifiers): A.NamedType {
    const first = specs.first!;
    let specifier = specs.specifier;
    if (specs.words.length > 0) {
      const words = specs.words.map((w) => w.image);
      const where = pos(specs.words[specs.words.length - 1]);
      if (specifier !== null) {
        // A struct, union, enum or typedef name with builtin words: a second base is a
        // combination; signed/unsigned and long need an integer (long a float) type, which none
        // of these is to DTrace (a typedef's kind is typedef); short is let pass, as DTrace does.
        const [tag, message] = words.some((w) => !ATTRIBUTE_WORDS.has(w)) ? [ErrorTags.D_DECL_COMBO, 'invalid type combination']
          : words.includes('signed') || words.includes('unsigned') ? SIGNINT
          : words.includes('long') ? LONGINT : [null, ''];
        // libdtrace combines the words with a struct body once it has seen its '{'.
        const line = (specifier as A.Position).dnLine;
        if (tag !== null) throw new DtraceError(tag, message, line !== undefined ? { ...where, line } : where);
      } else {
        const name = canonicalBuiltinType(words);
        if (name === null) {
          const [tag, message] = builtinWordsError(words);
          throw new DtraceError(tag, message, where);
        }
        specifier = { kind: 'BuiltinType', ...pos(specs.words[0]), name, words };
      }
    }
    if (specifier === null) {
      // Only qualifiers/storage class (e.g. `const x;`, `self x;`): C's implicit int.
      specifier = { kind: 'BuiltinType', ...pos(first), name: 'int', words: [] };
    }
    return { kind: 'NamedType', ...pos(first), specifier, qualifiers: specs.qualifiers, userland: specs.userland };
  }
}

// ---------------------------------------------------------------------------------------------
// Probe descriptions
// ---------------------------------------------------------------------------------------------

/**
 * Split a probe description into its elements, right-aligned as DTrace does (RFD 2's fifth,
 * leftmost element is the instance; missing, it is "host").
 */
export function splitProbeDescription(text: string, where: A.Position = { line: 0, column: 0 }): A.ProbeDescription {
  const parts = text.split(':');
  if (parts.length > 5) {
    throw new DtraceError(ErrorTags.D_PDESC_INVAL, `invalid probe description "${text}": Overspecified probe description`, where);
  }
  const [name, fn, mod, prov, inst] = parts.reverse();
  return {
    kind: 'ProbeDescription',
    ...where,
    text,
    instance: inst ?? 'host',
    provider: prov ?? '',
    module: mod ?? '',
    function: fn ?? '',
    name: name ?? '',
  };
}

// ---------------------------------------------------------------------------------------------
// Control lines
// ---------------------------------------------------------------------------------------------

interface LineMark {
  /** First physical line the mark applies to. */
  fromLine: number;
  /** Line number that physical line gets. */
  line: number;
  file?: string;
}

function controlError(t: IToken, tag: string, message: string): DtraceError {
  return new DtraceError(tag, message, pos(t));
}

/** Turn control-line tokens into Pragma nodes and `#line` marks. */
function readControlLines(controls: IToken[], source: string): { pragmas: { node: A.Pragma; offset: number }[]; marks: LineMark[]; error: { offset: number; error: DtraceError } | null } {
  const pragmas: { node: A.Pragma; offset: number }[] = [];
  const marks: LineMark[] = [];
  let error: { offset: number; error: DtraceError } | null = null;
  const fail = (t: IToken, e: DtraceError) => {
    if (error === null) error = { offset: t.startOffset, error: e };
  };
  for (const t of controls) {
    const body = t.image.trimStart().slice(1); // after '#'
    if (body.startsWith('!')) continue; // `#!` interpreter line
    if (t.startOffset + t.image.length >= source.length) {
      fail(t, controlError(t, ErrorTags.D_SYNTAX, 'end-of-file encountered before end of control line'));
      continue;
    }
    const words = L.controlWords(body);
    if (!Array.isArray(words)) {
      fail(t, controlError(t, words.tag, words.message));
      continue;
    }
    const node: A.Pragma = { kind: 'Pragma', ...pos(t), directive: '', args: [], options: [], text: t.image };
    const [first, ...rest] = words;
    if (first === undefined) continue; // `#` alone: a null directive
    if (first === 'line' || /^[0-9]+$/.test(first)) {
      const numberWord = first === 'line' ? rest[0] : first;
      const fileWord = first === 'line' ? rest[1] : rest[0];
      if (numberWord === undefined || !/^[0-9]+$/.test(numberWord)) {
        fail(t, controlError(t, ErrorTags.D_PRAGMA_MALFORM, 'malformed #line directive'));
        continue;
      }
      marks.push({ fromLine: (t.startLine ?? 0) + 1, line: Number(numberWord), file: fileWord });
      node.directive = 'line';
      node.args = first === 'line' ? rest : words;
    } else if (first === 'pragma') {
      if (rest[0] === 'D' && rest.length >= 2) {
        node.directive = rest[1];
        node.args = rest.slice(2);
        if (node.directive === 'option') {
          node.options = node.args.map((a) => {
            const eq = a.indexOf('=');
            return eq < 0 ? { name: a } : { name: a.slice(0, eq), value: a.slice(eq + 1) };
          });
        }
      } else {
        node.directive = 'other-pragma';
        node.args = rest;
      }
    } else if (first === 'ident' || first === 'error') {
      node.directive = first;
      node.args = rest;
    } else {
      fail(t, controlError(t, ErrorTags.D_PRAGCTL_INVAL, `invalid control directive: #${first}`));
      continue;
    }
    pragmas.push({ node, offset: t.startOffset });
  }
  return { pragmas, marks, error };
}

/** Map a physical line through `#line` marks. */
function mapLine(marks: LineMark[], physical: number): { line: number; file?: string } {
  let mark: LineMark | undefined;
  for (const m of marks) {
    if (m.fromLine <= physical) mark = m;
    else break;
  }
  if (!mark) return { line: physical };
  const r: { line: number; file?: string } = { line: mark.line + (physical - mark.fromLine) };
  if (mark.file !== undefined) r.file = mark.file;
  return r;
}

function applyLineMarks(tokens: IToken[], marks: LineMark[]): void {
  if (marks.length === 0) return;
  for (const t of tokens) {
    const m = mapLine(marks, t.startLine ?? 0);
    t.startLine = m.line;
    if (m.file !== undefined) (t as IToken & { file?: string }).file = m.file;
  }
}

// ---------------------------------------------------------------------------------------------
// Entry point
// ---------------------------------------------------------------------------------------------

let sharedParser: DParser | null = null;

/** `#pragma D option pspec`, which changes how the whole text lexes. */
const PSPEC_PRAGMA = /^[ \t]*#[ \t]*pragma[ \t]+D[ \t]+option[ \t]+pspec[ \t]*$/m;

/**
 * Parse D source into a Program. `file` is recorded as Program.source (e.g. the -s path); it may
 * also be given as `options.file`, and the options may be passed second: parse(text, options).
 * Throws DtraceError (with DTrace's message, tag and line) on any lexical or syntax error.
 */
export function parse(source: string, fileOrOptions?: string | ParseOptions, moreOptions: ParseOptions = {}): A.Program {
  const options: ParseOptions = typeof fileOrOptions === 'object' ? { ...fileOrOptions, ...moreOptions } : moreOptions;
  const file = typeof fileOrOptions === 'string' ? fileOrOptions : options.file;
  sharedParser ??= new DParser();
  const parser = sharedParser;
  const probeMode = options.kind === 'probe-description' || options.probeSpec === true;
  const pspec = options.pspec === true || PSPEC_PRAGMA.test(source);
  const external = options.isTypeName ?? (() => false);
  const scriptTypes = new Set<string>();

  // Script typedefs change how the outer scope lexes (`foo_t x;`), so a script that declares a
  // typedef its outer scope then uses is lexed again knowing it (rare; bounded).
  for (let attempt = 0; ; attempt++) {
    const isTypeName = (n: string) => BUILTIN_TYPEDEF_SET.has(n) || scriptTypes.has(n) || external(n);
    const lexed = L.tokenize(source, { probeMode: probeMode || pspec, isTypeName });
    const control = readControlLines(lexed.controls, source);
    applyLineMarks(lexed.tokens, control.marks);
    parser.begin(lexed.tokens, { probeMode, specifying: options.specifying, isTypeName: external, typeNames: scriptTypes });

    let items: { node: A.TopLevel; offset: number }[] | undefined;
    let failure: { offset: number; error: DtraceError } | null = null;
    try {
      items = parser.program();
      if (parser.errors.length > 0) {
        const t = parser.errors[0].token;
        const at = adjacentWords(t, lexed.tokens);
        failure = tokenFailure(at, source, control.marks);
        castHint(failure.error, at, lexed.tokens);
        identifierNear(failure.error, at, lexed.tokens, source, options.isKnownName, (n) => parser.isTypeName(n));
      }
    } catch (e) {
      if (!(e instanceof DtraceError)) throw e;
      failure = AT_END.has(e) ? endFailure(source, control.marks) : { offset: offsetOfError(e, lexed.tokens), error: e };
      const t = lexed.tokens.find((x) => x.startOffset === failure!.offset);
      if (t) castHint(e, t, lexed.tokens);
      if (t) identifierNear(e, t, lexed.tokens, source, options.isKnownName, (n) => parser.isTypeName(n));
    }

    const newTypes = parser.declaredTypedefs.filter((n) => !scriptTypes.has(n));
    if (failure !== null && newTypes.length > 0 && attempt < 8 && usesAsOuterWord(lexed.tokens, newTypes)) {
      for (const n of newTypes) scriptTypes.add(n);
      continue;
    }
    if (control.error !== null && (failure === null || control.error.offset <= failure.offset)) {
      throw control.error.error;
    }
    if (failure !== null) {
      for (const p of control.pragmas) {
        if (p.offset >= failure.offset) break;
        const m = mapLine(control.marks, p.node.line);
        options.pragmaBeforeError?.({ ...p.node, line: m.line, ...(m.file !== undefined ? { file: m.file } : {}) });
      }
      throw failure.error;
    }

    const all: { node: A.TopLevel; offset: number }[] = [...(items ?? [])];
    for (const p of control.pragmas) {
      const m = mapLine(control.marks, p.node.line);
      p.node.line = m.line;
      if (m.file !== undefined) p.node.file = m.file;
      all.push(p);
    }
    all.sort((a, b) => a.offset - b.offset);
    const program: A.Program = { kind: 'Program', line: 1, column: 1, items: all.map((x) => x.node) };
    if (file !== undefined) program.source = file;
    const float = lexed.tokens.find((t) => t.tokenType === L.FloatLiteral);
    if (float) program.firstFloat = pos(float);
    return program;
  }
}

/** The error for a token the parser could not accept. */
function tokenFailure(t: IToken, source: string, marks: LineMark[]): { offset: number; error: DtraceError } {
  if (t.tokenType === EOF) return endFailure(source, marks);
  return { offset: t.startOffset, error: syntaxError(t) };
}

/**
 * A cast to a type this system does not know (`(uf_entry_t *)p`, `(foo_t)x`) reads as an
 * expression and fails as a syntax error, as in DTrace; so does an associative array keyed by a
 * pointer to one (`int seen[foo_t *];`). Name the unknown type so the reader knows what is missing
 * rather than hunting for a typo.
 */
function castHint(e: DtraceError, t: IToken, tokens: IToken[]): void {
  let i = tokens.indexOf(t);
  if (i < 0 || e.tag !== ErrorTags.D_SYNTAX) return;
  const is = (k: number, type: TokenType) => k >= 0 && tokenMatcher(tokens[k], type);
  let open: TokenType = L.LParen;
  if (is(i - 1, L.RParen)) i--; // `(foo_t) x`: the failure is at x
  else if (is(i, L.RBracket) || is(i, L.Comma)) open = L.LBracket; // `[foo_t *]`, `[foo_t *, int]`
  else if (!is(i, L.RParen)) return;
  let k = i - 1;
  while (is(k, L.Star)) k--;
  if (!is(k, L.Identifier) || !is(k - 1, open)) return;
  if (open === L.LBracket && k === i - 1) return; // `a[x]`: an index, not a type
  if (k === i - 1 && is(k - 2, L.Identifier)) return; // `f(x) y`: a call, not a cast
  e.hint = `${tokens[k].image} is not a known type name`;
}

/**
 * `(a b ...`: Chevrotain fails at the '(' when no alternative fits, but DTrace's parser reads
 * `(a` and fails at `b` (`sizeof (vmlinux`struct task_struct)`).
 */
function adjacentWords(t: IToken, tokens: IToken[]): IToken {
  if (!tokenMatcher(t, L.LParen)) return t;
  const i = tokens.indexOf(t);
  const a = tokens[i + 1], b = tokens[i + 2];
  if (a && b && tokenMatcher(a, L.Identifier) && tokenMatcher(b, L.Identifier)) return b;
  return t;
}

/** Tokens after which DTrace's id_or_type() takes a new identifier for a variable and remembers it. */
const IDENT_FOLLOWERS = new Set(['=', '[', ';', '++', '--', ',']);

/**
 * The text of a syntax error at an identifier, as DTrace for Linux prints it. Its id_or_type()
 * peeks past an identifier it does not know yet (reading the white space, then putting back
 * blanks and the newlines first), which leaves the token's text running on to the end of the line
 * (`syntax error near "b + 1;"`), or to "end of input" when only white space follows. Names
 * already known (built-ins, functions, globals, and identifiers an earlier peek saw assigned or
 * declared) and member names after `->` or `.`, or tags after struct/union/enum, are not peeked past.
 */
function identifierNear(e: DtraceError, t: IToken, tokens: IToken[], source: string, known?: (n: string) => boolean,
  isType?: (n: string) => boolean): void {
  if (e.tag !== ErrorTags.D_SYNTAX || e.message !== `syntax error near "${t.image}"` || e.hint !== undefined) return;
  if (t.tokenType !== L.Identifier && t.tokenType !== L.OuterTypeName) return;
  const i = tokens.indexOf(t);
  const prev = i > 0 ? tokens[i - 1].image : '';
  if (['->', '.', 'struct', 'union', 'enum'].includes(prev)) return;
  // A type name is always peeked past (to tell a type from a variable named like one).
  if (isType?.(t.image)) return peekPast(e, t, source);
  if (known?.(t.image)) return;
  for (let k = 0; k < i; k++) {
    if (tokens[k].image === t.image && tokens[k].tokenType === t.tokenType && IDENT_FOLLOWERS.has(tokens[k + 1]?.image ?? '')) return;
  }
  peekPast(e, t, source);
}

/** The message of a syntax error at identifier `t`, its text running on to the end of the line. */
function peekPast(e: DtraceError, t: IToken, source: string): void {
  let j = t.startOffset + t.image.length;
  let blanks = 0;
  let newlines = 0;
  while (j < source.length && '\f\n\r\t\v '.includes(source[j])) {
    if (source[j] === '\n') newlines++;
    else blanks++;
    j++;
  }
  if (j >= source.length) {
    e.message = 'syntax error near end of input';
    return;
  }
  const text = t.image + ' '.repeat(blanks) + '\n'.repeat(newlines) + source.slice(j);
  const nl = text.indexOf('\n');
  e.message = `syntax error near "${nl < 0 ? text : text.slice(0, nl)}"`;
}

/** A syntax error at end of input, on the line DTrace's lexer is at then (1 + newlines read). */
function endFailure(source: string, marks: LineMark[]): { offset: number; error: DtraceError } {
  let newlines = 0;
  for (let i = source.indexOf('\n'); i >= 0; i = source.indexOf('\n', i + 1)) newlines++;
  const m = mapLine(marks, newlines + 1);
  return {
    offset: source.length,
    error: new DtraceError(ErrorTags.D_SYNTAX, 'syntax error near end of input', { line: m.line, file: m.file }),
  };
}

/** Best-effort source offset of a thrown error (for ordering against control-line errors). */
function offsetOfError(e: DtraceError, tokens: IToken[]): number {
  for (const t of tokens) {
    if (t.startLine === e.line && t.startColumn === e.column) return t.startOffset;
  }
  return Number.MAX_SAFE_INTEGER;
}

/** Does any outer-scope word (probe description) name one of these types? */
function usesAsOuterWord(tokens: IToken[], names: string[]): boolean {
  const set = new Set(names);
  return tokens.some((t) => {
    if (t.tokenType !== L.ProbeSpec || t.image.includes(':')) return false;
    const star = t.image.indexOf('*');
    return set.has(star > 0 ? t.image.slice(0, star) : t.image);
  });
}
