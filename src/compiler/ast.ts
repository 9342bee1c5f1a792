/**
 * The D abstract syntax tree produced by `parse()` (parser.ts).
 *
 * Conventions, relied upon by the semantic pass and the code generator:
 * - Every node has `kind` (a string discriminant), `line` and `column` (1-based, of the node's first
 *   token; `line` honours `#line` / cpp line markers). Nodes carry no types: typing is the
 *   semantic pass's job.
 * - Integer values are `bigint` (D integers are 64-bit; constants up to 2^64-1).
 * - The tree is plain data (no classes, no parent links), safe to walk with a `switch (node.kind)`.
 * - Everything here is stable API: add optional fields rather than renaming or removing.
 */

/** Source position shared by every node. */
export interface Position {
  /** 1-based source line of the node's first token (after `#line` mapping). */
  line: number;
  /** 1-based column of the node's first token. */
  column: number;
  /** File name when a `#line N "file"` directive (e.g. from cpp) named one; undefined otherwise. */
  file?: string;
  /**
   * The line libdtrace's node carries when it is not the first token's: its lexer's line when the
   * parser built the node -- the token after the last operand of an operator, cast or
   * assignment (the parser's lookahead), a member's `.`/`->`, an index's `]`, a clause's `}`.
   * Errors about the node name this line.
   */
  dnLine?: number;
}

// ---------------------------------------------------------------------------------------------
// Program and top-level items
// ---------------------------------------------------------------------------------------------

/** A whole D program: top-level items in source order. */
export interface Program extends Position {
  kind: 'Program';
  /** The `file` argument given to parse() (e.g. the -s script path), if any. */
  source?: string;
  items: TopLevel[];
  /** Where the first floating-point constant is, if any (D refuses them once the parse succeeds). */
  firstFloat?: Position;
}

export type TopLevel =
  | Clause
  | Declaration
  | InlineDefinition
  | TranslatorDefinition
  | ProviderDefinition
  | Pragma;

/**
 * A probe clause: `desc[, desc...] [/ predicate /] { statements }`.
 * `body` is null only for a bare description (`dtrace -n BEGIN`), which parse() accepts only with
 * `kind: 'probe-description'`; an empty `{ }` body is an empty array.
 */
export interface Clause extends Position {
  kind: 'Clause';
  probes: ProbeDescription[];
  predicate: Expression | null;
  body: Statement[] | null;
}

/**
 * A probe description as written, split DTrace-style from the right on ':'.
 * `BEGIN` -> name only; `a:b` -> function:name; `p:m:f:n` -> all four; a fifth element (RFD 2) is
 * the instance. Missing elements are '' (match anything), except `instance`, which defaults to
 * 'host'. Glob characters (* ? [ ] \ !) and macro references ($target, $1, $$1, $pid...) are kept
 * verbatim: matching and macro expansion are the compiler's job.
 */
export interface ProbeDescription extends Position {
  kind: 'ProbeDescription';
  /** The description exactly as written, e.g. "pid$target:a.out:main:entry". */
  text: string;
  instance: string;
  provider: string;
  module: string;
  function: string;
  name: string;
  /** Set when the description is a numeric probe id (`dtrace -n 1234`): elements are then ''. */
  id?: number;
}

// ---------------------------------------------------------------------------------------------
// Statements (clause bodies)
// ---------------------------------------------------------------------------------------------

export type Statement = ExpressionStatement | IfStatement;

export interface ExpressionStatement extends Position {
  kind: 'ExpressionStatement';
  expression: Expression;
}

/** `if (test) consequent [else alternate]`; a single statement is a one-element array. */
export interface IfStatement extends Position {
  kind: 'IfStatement';
  test: Expression;
  consequent: Statement[];
  alternate: Statement[] | null;
}

// ---------------------------------------------------------------------------------------------
// Expressions
// ---------------------------------------------------------------------------------------------

export type Expression =
  | IntegerLiteral
  | FloatLiteral
  | StringLiteral
  | Identifier
  | MacroVariable
  | ThreadLocal
  | ClauseLocal
  | Aggregation
  | Index
  | Call
  | Member
  | Update
  | Unary
  | SizeofType
  | SizeofExpression
  | Stringof
  | Offsetof
  | Xlate
  | Cast
  | Binary
  | Conditional
  | Assignment
  | Comma;

/**
 * Integer constant: decimal, octal (leading 0), hex (0x) with optional u/l/ul/ll/ull suffix, or a
 * character constant (`'a'`, `'\n'`, multi-character `'ab'` packed big-end first as DTrace does).
 */
export interface IntegerLiteral extends Position {
  kind: 'IntegerLiteral';
  value: bigint;
  /** Source text, e.g. "0x1fUL" or "'a'". */
  text: string;
  /** Suffix as written (e.g. "", "u", "UL", "ull"). Always '' for character constants. */
  suffix: string;
  /**
   * True for decimal constants and character constants; false for octal/hex. DTrace uses this in
   * choosing the constant's type (octal/hex may become unsigned, decimal may not).
   */
  decimal: boolean;
  /** True when written as a character constant. */
  isChar: boolean;
}

/**
 * Floating-point constant (e.g. `1.5`, `1e3`). DTrace's parser rejects these ("floating-point
 * constants are not permitted", D_SYNTAX); this parser keeps them so that the semantic pass can
 * decide (and report with that message).
 */
export interface FloatLiteral extends Position {
  kind: 'FloatLiteral';
  value: number;
  text: string;
}

/** String literal with escapes decoded. */
export interface StringLiteral extends Position {
  kind: 'StringLiteral';
  /** Decoded text; an escape like \xff or \377 yields the single char U+00FF. */
  value: string;
  /** Exact bytes (source characters UTF-8 encoded, escapes as their byte value). No trailing NUL. */
  bytes: Uint8Array;
}

/**
 * A name: variable, built-in variable, function name, enum constant, or kernel symbol.
 * Backquote scoping is split out: `vmlinux`jiffies` -> { name: 'jiffies', module: 'vmlinux' };
 * `` `jiffies `` -> { name: 'jiffies', module: '' } (any kernel module); plain names have no
 * `module`. The bare keywords `self` and `this` (not followed by `->`) appear as Identifiers too.
 */
export interface Identifier extends Position {
  kind: 'Identifier';
  name: string;
  module?: string;
}

/**
 * Macro variable: `$1`..`$N` (name "1"...), `$target`, `$pid`, `$ppid`, `$uid`, ... (name without
 * '$'). `asString` is true for the `$$` form (`$$1`), which always yields a string.
 */
export interface MacroVariable extends Position {
  kind: 'MacroVariable';
  name: string;
  asString: boolean;
}

/** `self->name` (thread-local variable). */
export interface ThreadLocal extends Position {
  kind: 'ThreadLocal';
  name: string;
}

/** `this->name` (clause-local variable). */
export interface ClauseLocal extends Position {
  kind: 'ClauseLocal';
  name: string;
}

/**
 * An aggregation reference: `@name`, `@name[k1, k2]`, or `@` alone (whose name is "_", as in
 * DTrace: `@` and `@_` are the same aggregation). `keys` is null when no `[...]` follows.
 * An aggregation statement is an Assignment whose target is an Aggregation:
 * `@a[k] = count()` -> Assignment{ op: '=', target: Aggregation{ name: 'a', keys: [k] }, value: Call }.
 */
export interface Aggregation extends Position {
  kind: 'Aggregation';
  name: string;
  keys: Expression[] | null;
}

/** `base[k1, k2, ...]`: array subscript or associative-array (tuple) lookup. */
export interface Index extends Position {
  kind: 'Index';
  base: Expression;
  keys: Expression[];
}

/** Function / action / subroutine call. In valid D, `callee` is an Identifier. */
export interface Call extends Position {
  kind: 'Call';
  callee: Expression;
  args: Expression[];
  /** The line of the closing `)`, where DTrace finds a function undefined. */
  closeLine?: number;
}

/** `object.member` (arrow false) or `object->member` (arrow true). */
export interface Member extends Position {
  kind: 'Member';
  object: Expression;
  member: string;
  arrow: boolean;
}

/** `++x`, `--x` (prefix true) or `x++`, `x--` (prefix false). */
export interface Update extends Position {
  kind: 'Update';
  op: '++' | '--';
  prefix: boolean;
  operand: Expression;
}

/**
 * Prefix operators: `!` logical not, `~` bitwise not, `-` negation, `+` unary plus,
 * `*` dereference, `&` address-of.
 */
export interface Unary extends Position {
  kind: 'Unary';
  op: '!' | '~' | '-' | '+' | '*' | '&';
  operand: Expression;
}

/** `sizeof (type)`. */
export interface SizeofType extends Position {
  kind: 'SizeofType';
  type: TypeName;
}

/** `sizeof expr`. */
export interface SizeofExpression extends Position {
  kind: 'SizeofExpression';
  operand: Expression;
}

/** `stringof expr`. */
export interface Stringof extends Position {
  kind: 'Stringof';
  operand: Expression;
}

/** `offsetof(type, member)`. */
export interface Offsetof extends Position {
  kind: 'Offsetof';
  type: TypeName;
  member: string;
}

/** `xlate<type>(expr)`. */
export interface Xlate extends Position {
  kind: 'Xlate';
  type: TypeName;
  operand: Expression;
}

/** `(type) expr`. */
export interface Cast extends Position {
  kind: 'Cast';
  type: TypeName;
  operand: Expression;
}

export type BinaryOperator =
  | '||' | '^^' | '&&'
  | '|' | '^' | '&'
  | '==' | '!='
  | '<' | '<=' | '>' | '>='
  | '<<' | '>>'
  | '+' | '-'
  | '*' | '/' | '%';

/** Binary operators, including the logical `||`, `^^` (logical xor) and `&&`. */
export interface Binary extends Position {
  kind: 'Binary';
  op: BinaryOperator;
  left: Expression;
  right: Expression;
  /** The compound assignment this stands for (`x += y` as `x + y`), as messages name it. */
  written?: AssignmentOperator;
}

/** `test ? consequent : alternate`. */
export interface Conditional extends Position {
  kind: 'Conditional';
  test: Expression;
  consequent: Expression;
  alternate: Expression;
}

export type AssignmentOperator =
  | '=' | '+=' | '-=' | '*=' | '/=' | '%=' | '&=' | '|=' | '^=' | '<<=' | '>>=';

/** `target op value` (right-associative). */
export interface Assignment extends Position {
  kind: 'Assignment';
  op: AssignmentOperator;
  target: Expression;
  value: Expression;
}

/** `left, right` (the C comma operator; left-associative). */
export interface Comma extends Position {
  kind: 'Comma';
  left: Expression;
  right: Expression;
}

// ---------------------------------------------------------------------------------------------
// Types
// ---------------------------------------------------------------------------------------------

export type TypeQualifier = 'const' | 'volatile' | 'restrict';

/**
 * A type as written. Declarators are already folded in: `int *a[3]` gives
 * Array{ of: Pointer{ to: Named{ int } }, size: 3 } for the declared name `a`.
 */
export type TypeExpression = NamedType | PointerType | ArrayType | FunctionType;

/** A base type from the specifiers (with its qualifiers). */
export interface NamedType extends Position {
  kind: 'NamedType';
  specifier: TypeSpecifier;
  qualifiers: TypeQualifier[];
  /** True when the `userland` specifier was given (pointers into user space). */
  userland: boolean;
}

export interface PointerType extends Position {
  kind: 'PointerType';
  to: TypeExpression;
  qualifiers: TypeQualifier[];
}

/**
 * `T name[N]` (size set), `T name[]` (neither set), or a D associative array declared with key
 * types `T name[int, string]` (keys set).
 */
export interface ArrayType extends Position {
  kind: 'ArrayType';
  of: TypeExpression;
  size: Expression | null;
  keys: Parameter[] | null;
  /** `...` ended the tuple signature (which DTrace refuses for arrays). */
  varargs?: boolean;
}

/** A function type: `T name(params)`; `params` empty for `()`; `(void)` is one void parameter. */
export interface FunctionType extends Position {
  kind: 'FunctionType';
  returns: TypeExpression;
  params: Parameter[];
  varargs: boolean;
}

/** A parameter in a function or provider probe prototype, or an associative array key. */
export interface Parameter extends Position {
  kind: 'Parameter';
  name: string | null;
  type: TypeExpression;
}

export type TypeSpecifier = BuiltinTypeSpecifier | TypedefNameSpecifier | StructSpecifier | EnumSpecifier;

/**
 * Built-in arithmetic types, `void` and D's `string`, normalised to a canonical C spelling:
 * one of "void", "char", "signed char", "unsigned char", "short", "unsigned short", "int",
 * "unsigned int", "long", "unsigned long", "long long", "unsigned long long", "float", "double",
 * "long double", "string". `words` keeps the words as written ("unsigned", "long", "int").
 * Bare `signed` is "int"; bare `unsigned` is "unsigned int"; `signed short` is "short", etc.
 */
export interface BuiltinTypeSpecifier extends Position {
  kind: 'BuiltinType';
  name: string;
  words: string[];
}

/** A typedef name (`uint64_t`, `pid_t`, a script typedef), optionally module scoped (mod`name). */
export interface TypedefNameSpecifier extends Position {
  kind: 'TypedefName';
  name: string;
  module?: string;
}

/**
 * `struct tag`, `union tag`, `struct [tag] { members }`. `members` null for a reference.
 * Module scoping: `struct vmlinux`task_struct` and `vmlinux`struct task_struct` both give
 * { tag: 'task_struct', module: 'vmlinux' }.
 */
export interface StructSpecifier extends Position {
  kind: 'StructType';
  union: boolean;
  tag: string | null;
  module?: string;
  members: StructMember[] | null;
}

/** One member; `bits` is set for a bit-field (`int x : 3`, or an unnamed `int : 3`). */
export interface StructMember extends Position {
  kind: 'StructMember';
  name: string | null;
  type: TypeExpression;
  bits: Expression | null;
}

/** `enum tag`, `enum [tag] { A, B = expr }`. `enumerators` null for a reference. */
export interface EnumSpecifier extends Position {
  kind: 'EnumType';
  tag: string | null;
  module?: string;
  enumerators: Enumerator[] | null;
}

export interface Enumerator extends Position {
  kind: 'Enumerator';
  name: string;
  value: Expression | null;
}

/** A type name as in casts, sizeof, offsetof, xlate and translators (abstract declarator). */
export interface TypeName extends Position {
  kind: 'TypeName';
  type: TypeExpression;
}

// ---------------------------------------------------------------------------------------------
// Declarations
// ---------------------------------------------------------------------------------------------

/**
 * D storage classes: the C ones, plus `self` (thread-local) and `this` (clause-local).
 * `typedef` declarations are Declarations with storage 'typedef'.
 */
export type StorageClass = 'auto' | 'register' | 'static' | 'extern' | 'typedef' | 'self' | 'this';

/**
 * A declaration: `int x;`, `self int x;`, `this string s;`, `int a[string, int];`,
 * `typedef unsigned long foo_t;`, `struct foo { int a; };` (no declarators).
 * Each declarator becomes one entry of `declarators` with its full type.
 */
export interface Declaration extends Position {
  kind: 'Declaration';
  storage: StorageClass | null;
  /** The base type of all declarators (carries struct/enum definitions, if any). */
  base: NamedType;
  declarators: Declarator[];
}

export interface Declarator extends Position {
  kind: 'Declarator';
  name: string;
  type: TypeExpression;
}

/** `inline TYPE NAME = expr;` */
export interface InlineDefinition extends Position {
  kind: 'InlineDefinition';
  name: string;
  type: TypeExpression;
  value: Expression;
}

/** `translator OUT < IN *param > { member = expr; ... };` */
export interface TranslatorDefinition extends Position {
  kind: 'TranslatorDefinition';
  output: TypeName;
  input: TypeName;
  param: string;
  members: TranslatorMember[];
  /** The closing `;`: where DTrace reports what is wrong with the definition as a whole. */
  end: Position;
}

export interface TranslatorMember extends Position {
  kind: 'TranslatorMember';
  /** The member, or `member.field` for a field of a struct-valued member. */
  name: string;
  value: Expression;
}

/** `provider name { probe p(args) [: (xargs)]; ... };` */
export interface ProviderDefinition extends Position {
  kind: 'ProviderDefinition';
  name: string;
  probes: ProviderProbe[];
}

export interface ProviderProbe extends Position {
  kind: 'ProviderProbe';
  /** Probe name as written in the declaration (DTrace maps `__` to `-` later). */
  name: string;
  /** Native argument types. */
  params: Parameter[];
  /** Translated argument types after `:`, or null when absent. */
  translated: Parameter[] | null;
}

// ---------------------------------------------------------------------------------------------
// Pragmas and control lines
// ---------------------------------------------------------------------------------------------

/**
 * A control line (`#...`) that the preprocessor left. Kinds:
 * - `#pragma D option name[=value] ...`          -> directive 'option', options filled
 * - `#pragma D binding "1.0" name`               -> directive 'binding'
 * - `#pragma D depends_on provider|module|library ...` -> 'depends_on'
 * - `#pragma D attributes Stab/Stab/Class name`  -> 'attributes'
 * - any other `#pragma D word ...`              -> that word
 * - `#pragma` not followed by D (e.g. `#pragma ident`) -> directive 'other-pragma' (DTrace ignores)
 * - `#line N ["file"]` and cpp's `# N "file"` -> directive 'line' (already applied to positions)
 * - `#ident ...`                                -> directive 'ident'
 * - `#error ...`                                -> directive 'error'
 * Pragmas appear in Program.items in source order; one written inside a clause body is placed
 * just before that clause.
 */
export interface Pragma extends Position {
  kind: 'Pragma';
  directive: string;
  /** Words after the directive (strings keep their quotes stripped and escapes decoded). */
  args: string[];
  /** For 'option': each `name` or `name=value` argument. */
  options: PragmaOption[];
  /** The whole control line as written. */
  text: string;
}

export interface PragmaOption {
  name: string;
  /** undefined for a bare `name` (a boolean option being set). */
  value?: string;
}

/** Any node (for generic walkers). */
export type Node =
  | Program
  | TopLevel
  | ProbeDescription
  | Statement
  | Expression
  | TypeExpression
  | TypeSpecifier
  | TypeName
  | Parameter
  | StructMember
  | Enumerator
  | Declarator
  | TranslatorMember
  | ProviderProbe;
