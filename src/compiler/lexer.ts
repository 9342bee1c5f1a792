/**
 * The D lexer (Chevrotain), with DTrace's lexer states as Chevrotain modes:
 *
 *   outer  -- program outer scope (dt_lex.l's S2): probe descriptions, the keywords that start a
 *             declaration, ',' between descriptions, '/' opening a predicate, '{' opening a body.
 *   pred   -- inside `/ ... /`: expression tokens; a '/' followed (after white space) by '{', ';',
 *             '/' or end of input closes the predicate (PredEnd), anything else is division.
 *   body   -- inside `{ ... }` (clause bodies and the braces of declarations): expression tokens.
 *   decl   -- a top-level declaration after its first keyword: expression tokens; its ';' (DeclEnd)
 *             returns to the outer scope.
 *
 * Control lines (`#pragma`, `#line`, `# N "file"`, `#!`) go to the "control" token group; they
 * never reach the parser. Lexical errors do not throw here: they become LexError tokens carrying
 * the DTrace tag and message, so the parser reports whichever error comes first in the source,
 * as libdtrace does.
 */
import { createToken, Lexer, tokenMatcher, type IToken, type TokenType } from './chevrotain.js';
import { ErrorTags } from './errors.js';

// ---------------------------------------------------------------------------------------------
// Per-call lexing context (custom matchers consult it; set by tokenize()).
// ---------------------------------------------------------------------------------------------

export interface LexOptions {
  /**
   * True when lexing a probe-description string (dtrace -n/-P/-m/-f; DTRACE_C_PSPEC): a word at
   * the outer scope is then a probe description unless it is exactly a keyword.
   */
  probeMode?: boolean;
  /** Is this name a type (typedef) name? Decides `uint64_t x;` (a declaration) at the outer scope. */
  isTypeName?: (name: string) => boolean;
}

let context: Required<LexOptions> = { probeMode: false, isTypeName: () => false };

/** Payload of a LexError token. */
export interface LexErrorPayload {
  tag: string;
  message: string;
}

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------


function sticky(re: RegExp): RegExp {
  return new RegExp(re.source, 'y');
}

function matchAt(re: RegExp, text: string, offset: number): string | null {
  re.lastIndex = offset;
  const m = re.exec(text);
  return m ? m[0] : null;
}

function withPayload(image: string, payload: unknown): [string] & { payload?: unknown } {
  const r = [image] as [string] & { payload?: unknown };
  r.payload = payload;
  return r;
}

function lexError(image: string, tag: string, message: string): [string] & { payload?: unknown } {
  return withPayload(image, { tag, message } satisfies LexErrorPayload);
}

const LETTERS = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_';
const DIGITS = '0123456789';

// The commonest tokens -- words, probe descriptions, integers -- are scanned by character codes
// rather than matched by sticky regular expressions: a 10,000-clause script spent a tenth of its
// compile making those matches' arrays. Each scanner takes what its regular expression did.

/** A character class (ASCII: the classes below hold nothing else) as a table by character code. */
function charClass(chars: string): Uint8Array {
  const t = new Uint8Array(128);
  for (const c of chars) t[c.charCodeAt(0)] = 1;
  return t;
}

/** One `start` character at `offset`, then as many `part` ones as follow; null when none starts. */
function scanRun(text: string, offset: number, start: Uint8Array, part: Uint8Array): string | null {
  const c = text.charCodeAt(offset);
  if (!(c < 128 && start[c] === 1)) return null;
  let i = offset + 1;
  for (; i < text.length; i++) {
    const d = text.charCodeAt(i);
    if (!(d < 128 && part[d] === 1)) break;
  }
  return text.slice(offset, i);
}

/** /[a-zA-Z_`][0-9a-zA-Z_`]*\/y: a word (identifier, keyword, type name). */
const WORD_START = charClass(`${LETTERS}\``);
const WORD_PART = charClass(`${LETTERS}${DIGITS}\``);
const scanWord = (text: string, offset: number): string | null => scanRun(text, offset, WORD_START, WORD_PART);

const isDigit = (c: number): boolean => c >= 48 && c <= 57;
const isHexDigit = (c: number): boolean => isDigit(c) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102);

/** /(?:0[xX][0-9A-Fa-f]+|[0-9]+)[uU]?[lL]?[lL]?\/y: an integer constant's text. */
function scanInteger(text: string, offset: number): string | null {
  const c = text.charCodeAt(offset);
  if (!isDigit(c)) return null;
  let i = offset + 1;
  const x = text.charCodeAt(i);
  if (c === 48 && (x === 120 || x === 88) && isHexDigit(text.charCodeAt(i + 1))) {
    i += 2;
    while (isHexDigit(text.charCodeAt(i))) i++;
  } else {
    while (isDigit(text.charCodeAt(i))) i++;
  }
  let d = text.charCodeAt(i);
  if (d === 117 || d === 85) d = text.charCodeAt(++i); // u U
  if (d === 108 || d === 76) { // l L, twice
    d = text.charCodeAt(++i);
    if (d === 108 || d === 76) i++;
  }
  return text.slice(offset, i);
}

// ---------------------------------------------------------------------------------------------
// Token types shared by several modes
// ---------------------------------------------------------------------------------------------

/** Lexical errors (bad character, unterminated string, ...): the parser never consumes these. */
export const LexError = createToken({ name: 'LexError', pattern: Lexer.NA });

export const WhiteSpace = createToken({
  name: 'WhiteSpace',
  pattern: /[ \t\r\n\f\v]+|\\\n/,
  group: Lexer.SKIPPED,
  line_breaks: true,
  start_chars_hint: [' ', '\t', '\r', '\n', '\f', '\v', '\\'],
});

/** `#...` at the start of a line (only blanks before it), up to the end of the line. */
export const ControlLine = createToken({
  name: 'ControlLine',
  pattern: {
    exec: (text, offset) => {
      if (text.charCodeAt(offset) !== 35 /* # */) return null;
      for (let i = offset - 1; i >= 0 && text[i] !== '\n'; i--) {
        if (!' \t\f\v'.includes(text[i])) return null;
      }
      let end = text.indexOf('\n', offset);
      if (end < 0) end = text.length;
      return [text.slice(offset, end)];
    },
  },
  start_chars_hint: ['#'],
  line_breaks: false,
  group: 'control',
});

export const BlockComment = createToken({
  name: 'BlockComment',
  pattern: {
    exec: (text, offset) => {
      if (!text.startsWith('/*', offset)) return null;
      const end = text.indexOf('*/', offset + 2);
      const nested = text.indexOf('/*', offset + 2);
      if (nested >= 0 && (end < 0 || nested < end)) {
        return null; // reported by BadComment
      }
      if (end < 0) return null;
      return [text.slice(offset, end + 2)];
    },
  },
  start_chars_hint: ['/'],
  line_breaks: true,
  group: Lexer.SKIPPED,
});

/** A comment that is unterminated or contains another "/*": DTrace's two comment errors. */
export const BadComment = createToken({
  name: 'BadComment',
  categories: [LexError],
  pattern: {
    exec: (text, offset) => {
      if (!text.startsWith('/*', offset)) return null;
      const end = text.indexOf('*/', offset + 2);
      const nested = text.indexOf('/*', offset + 2);
      if (nested >= 0 && (end < 0 || nested < end)) {
        return lexError(text.slice(offset, nested + 2), ErrorTags.D_SYNTAX, '/* encountered inside a comment');
      }
      if (end < 0) {
        return lexError(text.slice(offset), ErrorTags.D_SYNTAX, 'end-of-file encountered before matching */');
      }
      return null;
    },
  },
  start_chars_hint: ['/'],
  line_breaks: true,
});

/** `//` comments, which DTrace scripts may carry when written for cpp (-C). */
export const LineComment = createToken({
  name: 'LineComment',
  pattern: /\/\/[^\n]*/,
  group: Lexer.SKIPPED,
  line_breaks: false,
  start_chars_hint: ['/'],
});

export const StringLiteral = createToken({
  name: 'StringLiteral',
  pattern: /"(?:[^"\\\n]|\\[^\n])*"/,
  line_breaks: false,
  start_chars_hint: ['"'],
});
export const BadString = createToken({
  name: 'BadString',
  categories: [LexError],
  pattern: {
    exec: (text, offset) => {
      const image = matchAt(/"(?:[^"\\\n]|\\[^\n])*/y, text, offset);
      return image === null ? null : lexError(image, ErrorTags.D_STR_NL, 'newline encountered in string literal');
    },
  },
  start_chars_hint: ['"'],
});

/** Character constant; its payload is the value (bigint) or a LexErrorPayload. */
export const CharLiteral = createToken({
  name: 'CharLiteral',
  pattern: {
    exec: (text, offset) => {
      const image = matchAt(/'(?:[^'\\\n]|\\[^\n])*'/y, text, offset);
      if (image === null) return null;
      return withPayload(image, charValue(image));
    },
  },
  start_chars_hint: ["'"],
});
export const BadChar = createToken({
  name: 'BadCharConstant',
  categories: [LexError],
  pattern: {
    exec: (text, offset) => {
      const image = matchAt(/'(?:[^'\\\n]|\\[^\n])*/y, text, offset);
      return image === null ? null : lexError(image, ErrorTags.D_CHR_NL, 'newline encountered in character constant');
    },
  },
  start_chars_hint: ["'"],
});

const RGX_FP = /(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?[fFlL]?/y;

/** Integer constant; payload is { value, suffix, decimal } or a LexErrorPayload. */
export const IntegerLiteral = createToken({
  name: 'IntegerLiteral',
  pattern: {
    exec: (text, offset) => {
      const int = scanInteger(text, offset);
      if (int === null) return null;
      // A float is longer only by a '.', an exponent or an f suffix after the digits.
      if ('.eEfF'.includes(text[offset + int.length] ?? ' ')) {
        const fp = matchAt(RGX_FP, text, offset);
        if (fp !== null && fp.length > int.length) return null; // a FloatLiteral
      }
      return withPayload(int, integerValue(int));
    },
  },
  start_chars_hint: DIGITS.split(''),
});

/**
 * An integer where a probe description may start: a probe ID. DTrace's lexer takes the digits
 * there as they come (`4.56` is the ID 4, then `.56`), never as a floating-point constant.
 */
export const OuterInteger = createToken({
  name: 'OuterInteger',
  categories: [IntegerLiteral],
  pattern: {
    exec: (text, offset) => {
      const int = scanInteger(text, offset);
      return int === null ? null : withPayload(int, integerValue(int));
    },
  },
  start_chars_hint: DIGITS.split(''),
});

export const FloatLiteral = createToken({
  name: 'FloatLiteral',
  pattern: {
    exec: (text, offset) => {
      const fp = matchAt(RGX_FP, text, offset);
      if (fp === null || fp === '.') return null;
      return [fp];
    },
  },
  start_chars_hint: [...DIGITS.split(''), '.'],
});

/** `$1`, `$$1`, `$target`, `$$pid`, ... */
export const MacroVariable = createToken({
  name: 'MacroVariable',
  pattern: /\$\$?(?:[0-9]+|[a-zA-Z_`][0-9a-zA-Z_`]*)/,
  line_breaks: false,
  start_chars_hint: ['$'],
});

/** `@name` or `@` alone. */
export const AggregationName = createToken({
  name: 'Aggregation',
  pattern: /@(?:[a-zA-Z_][0-9a-zA-Z_]*)?/,
  line_breaks: false,
  start_chars_hint: ['@'],
});

/**
 * Identifiers, including backquoted kernel scopes (`vmlinux`jiffies`, `` `jiffies ``). Tried
 * before the keywords, it leaves a word that is exactly a keyword to the keyword's token (which
 * matches only such a word): one match per word, not one per keyword of its first letter.
 */
export const Identifier = createToken({
  name: 'Identifier',
  pattern: {
    exec: (text, offset) => {
      const word = scanWord(text, offset);
      return word === null || KEYWORD_SET.has(word) ? null : [word];
    },
  },
  line_breaks: false,
  start_chars_hint: [...LETTERS.split(''), '`'],
});

// ---------------------------------------------------------------------------------------------
// Keywords
// ---------------------------------------------------------------------------------------------

/** Keyword categories used by the parser. */
export const StorageClassKw = createToken({ name: 'StorageClassKw', pattern: Lexer.NA });
export const QualifierKw = createToken({ name: 'QualifierKw', pattern: Lexer.NA });
export const BasicTypeKw = createToken({ name: 'BasicTypeKw', pattern: Lexer.NA });

const KEYWORD_CATEGORY: Record<string, TokenType | undefined> = {
  auto: StorageClassKw, register: StorageClassKw, static: StorageClassKw, extern: StorageClassKw,
  typedef: StorageClassKw, self: StorageClassKw, this: StorageClassKw,
  const: QualifierKw, volatile: QualifierKw, restrict: QualifierKw,
  void: BasicTypeKw, char: BasicTypeKw, short: BasicTypeKw, int: BasicTypeKw, long: BasicTypeKw,
  float: BasicTypeKw, double: BasicTypeKw, signed: BasicTypeKw, unsigned: BasicTypeKw,
  string: BasicTypeKw,
};

/** Every D keyword (dt_lex.l's S0 keywords, plus `userland`). Reserved ones are syntax errors. */
export const KEYWORDS = [
  'auto', 'break', 'case', 'char', 'const', 'continue', 'counter', 'default', 'do', 'double',
  'else', 'enum', 'extern', 'float', 'for', 'goto', 'if', 'import', 'inline', 'int', 'long',
  'offsetof', 'probe', 'provider', 'register', 'restrict', 'return', 'self', 'short', 'signed',
  'sizeof', 'static', 'string', 'stringof', 'struct', 'switch', 'this', 'translator', 'typedef',
  'union', 'unsigned', 'userland', 'void', 'volatile', 'while', 'xlate',
];
const KEYWORD_SET = new Set(KEYWORDS);

/** Keywords that start a declaration at the outer scope (dt_lex.l's S2 keywords). */
const OUTER_KEYWORDS = [
  'auto', 'char', 'const', 'counter', 'double', 'enum', 'extern', 'float', 'import', 'inline',
  'int', 'long', 'provider', 'register', 'restrict', 'self', 'short', 'signed', 'static', 'string',
  'struct', 'this', 'translator', 'typedef', 'union', 'unsigned', 'userland', 'void', 'volatile',
];
const OUTER_KEYWORD_SET = new Set(OUTER_KEYWORDS);

/** Keyword token types by keyword text (the expression-state ones; outer variants match these). */
export const Kw: Record<string, TokenType> = {};
for (const word of KEYWORDS) {
  const category = KEYWORD_CATEGORY[word];
  Kw[word] = createToken({
    name: `Kw_${word}`,
    label: word,
    pattern: new RegExp(`${word}(?![0-9a-zA-Z_\`])`),
    categories: category ? [category] : [],
    line_breaks: false,
    start_chars_hint: [word[0]],
  });
}

/** Outer-scope keyword variants: same parser category, but they enter the decl mode. */
const OuterKw: TokenType[] = OUTER_KEYWORDS.map((word) =>
  createToken({
    name: `OuterKw_${word}`,
    label: word,
    pattern: new RegExp(`${word}(?![0-9a-zA-Z_\`])`),
    categories: [Kw[word]],
    push_mode: 'decl',
    line_breaks: false,
    start_chars_hint: [word[0]],
  }),
);

/** A known type name starting a top-level declaration (`uint64_t x;`). */
export const OuterTypeName = createToken({
  name: 'OuterTypeName',
  categories: [Identifier],
  push_mode: 'decl',
  pattern: {
    exec: (text, offset) => {
      const word = scanWord(text, offset);
      if (word === null || context.probeMode || !context.isTypeName(word)) return null;
      return [word];
    },
  },
  start_chars_hint: [...LETTERS.split(''), '`'],
});

// ---------------------------------------------------------------------------------------------
// Probe descriptions (outer scope)
// ---------------------------------------------------------------------------------------------

/** /[-$:a-zA-Z_.?*\\[\]!][-$:0-9a-zA-Z_.`?*\\[\]!]*\/y: a probe description's text. */
const PSPEC_START = charClass(`${LETTERS}-$:.?*\\[]!`);
const PSPEC_PART = charClass(`${LETTERS}${DIGITS}-$:.\`?*\\[]!`);

/**
 * A probe description. As in DTrace, a word without ':' that is a keyword or a type name (up to
 * a '*', so `int*x;` declares x) is not a description; with ':' it always is.
 */
export const ProbeSpec = createToken({
  name: 'ProbeSpec',
  pattern: {
    exec: (text, offset) => {
      const spec = scanRun(text, offset, PSPEC_START, PSPEC_PART);
      if (spec === null) return null;
      if (!spec.includes(':')) {
        if (context.probeMode) {
          if (OUTER_KEYWORD_SET.has(spec)) return null;
        } else {
          const star = spec.indexOf('*');
          const head = star > 0 ? spec.slice(0, star) : spec;
          if (OUTER_KEYWORD_SET.has(head) || context.isTypeName(head)) return null;
        }
      }
      return [spec];
    },
  },
  start_chars_hint: [...LETTERS.split(''), ...'-$:.?*\\[]!'.split('')],
});

// ---------------------------------------------------------------------------------------------
// Punctuation
// ---------------------------------------------------------------------------------------------

/** Binary operators (precedence lives in the parser), assignment operators. */
export const BinaryOp = createToken({ name: 'BinaryOp', pattern: Lexer.NA });
export const AssignOp = createToken({ name: 'AssignOp', pattern: Lexer.NA });

function punct(name: string, image: string, categories: TokenType[] = []): TokenType {
  return createToken({ name, label: image, pattern: image, categories });
}

export const Ellipsis = punct('Ellipsis', '...');
export const LShiftAssign = punct('LShiftAssign', '<<=', [AssignOp]);
export const RShiftAssign = punct('RShiftAssign', '>>=', [AssignOp]);
export const Arrow = punct('Arrow', '->');
export const PlusPlus = punct('PlusPlus', '++');
export const MinusMinus = punct('MinusMinus', '--');
export const LShift = punct('LShift', '<<', [BinaryOp]);
export const RShift = punct('RShift', '>>', [BinaryOp]);
export const LessEq = punct('LessEq', '<=', [BinaryOp]);
export const GreaterEq = punct('GreaterEq', '>=', [BinaryOp]);
export const EqEq = punct('EqEq', '==', [BinaryOp]);
export const NotEq = punct('NotEq', '!=', [BinaryOp]);
export const AndAnd = punct('AndAnd', '&&', [BinaryOp]);
export const OrOr = punct('OrOr', '||', [BinaryOp]);
export const XorXor = punct('XorXor', '^^', [BinaryOp]);
export const PlusAssign = punct('PlusAssign', '+=', [AssignOp]);
export const MinusAssign = punct('MinusAssign', '-=', [AssignOp]);
export const StarAssign = punct('StarAssign', '*=', [AssignOp]);
export const SlashAssign = punct('SlashAssign', '/=', [AssignOp]);
export const PercentAssign = punct('PercentAssign', '%=', [AssignOp]);
export const AmpAssign = punct('AmpAssign', '&=', [AssignOp]);
export const PipeAssign = punct('PipeAssign', '|=', [AssignOp]);
export const CaretAssign = punct('CaretAssign', '^=', [AssignOp]);
export const Assign = punct('Assign', '=', [AssignOp]);
export const Less = punct('Less', '<', [BinaryOp]);
export const Greater = punct('Greater', '>', [BinaryOp]);
export const Plus = punct('Plus', '+', [BinaryOp]);
export const Minus = punct('Minus', '-', [BinaryOp]);
export const Star = punct('Star', '*', [BinaryOp]);
export const Slash = punct('Slash', '/', [BinaryOp]);
export const Percent = punct('Percent', '%', [BinaryOp]);
export const Amp = punct('Amp', '&', [BinaryOp]);
export const Pipe = punct('Pipe', '|', [BinaryOp]);
export const Caret = punct('Caret', '^', [BinaryOp]);
export const Bang = punct('Bang', '!');
export const Tilde = punct('Tilde', '~');
export const Question = punct('Question', '?');
export const Colon = punct('Colon', ':');
export const Dot = punct('Dot', '.');
export const Comma = punct('Comma', ',');
export const Semi = punct('Semi', ';');
export const LParen = punct('LParen', '(');
export const RParen = punct('RParen', ')');
export const LBracket = punct('LBracket', '[');
export const RBracket = punct('RBracket', ']');

export const LBrace = createToken({ name: 'LBrace', label: '{', pattern: '{', push_mode: 'body' });
export const RBrace = createToken({ name: 'RBrace', label: '}', pattern: '}', pop_mode: true });

/** '/' opening a predicate (outer scope). */
export const PredStart = createToken({ name: 'PredStart', label: '/', pattern: '/', push_mode: 'pred' });

/** '/' closing a predicate: the next non-blank character is '{', ';', '/' or end of input. */
export const PredEnd = createToken({
  name: 'PredEnd',
  label: '/',
  pop_mode: true,
  pattern: {
    exec: (text, offset) => {
      if (text.charCodeAt(offset) !== 47 /* / */) return null;
      let i = offset + 1;
      while (i < text.length && ' \t\n\r\f\v'.includes(text[i])) i++;
      if (i >= text.length || '{;/'.includes(text[i])) return ['/'];
      return null;
    },
  },
  start_chars_hint: ['/'],
});

/** ';' ending a top-level declaration. */
export const DeclEnd = createToken({ name: 'DeclEnd', label: ';', pattern: ';', pop_mode: true });

/** Any other character: DTrace's `syntax error near "c"`. */
export const BadCharacter = createToken({
  name: 'BadCharacter',
  categories: [LexError],
  pattern: {
    exec: (text, offset) => {
      const c = text[offset];
      if (c === undefined) return null;
      return lexError(c, ErrorTags.D_SYNTAX, `syntax error near "${c}"`);
    },
  },
  // Any character may start it. A custom pattern without hints would make Chevrotain try every
  // pattern of a mode at every character (several times slower); these cover each of its
  // first-character buckets: one per code below 256, one per 255 codes above.
  start_chars_hint: [
    ...Array.from({ length: 256 }, (_, c) => c),
    ...Array.from({ length: 256 }, (_, k) => 255 * (k + 2)).filter((c) => c <= 0xffff),
  ],
  line_breaks: false,
});

// ---------------------------------------------------------------------------------------------
// Modes
// ---------------------------------------------------------------------------------------------

const TRIVIA = [WhiteSpace, ControlLine, BadComment, BlockComment, LineComment];

const OPERATORS = [
  Ellipsis, LShiftAssign, RShiftAssign, Arrow, PlusPlus, MinusMinus, LShift, RShift, LessEq,
  GreaterEq, EqEq, NotEq, AndAnd, OrOr, XorXor, PlusAssign, MinusAssign, StarAssign, SlashAssign,
  PercentAssign, AmpAssign, PipeAssign, CaretAssign, Assign, Less, Greater, Plus, Minus, Star,
  Slash, Percent, Amp, Pipe, Caret, Bang, Tilde, Question, Colon, Dot, Comma, LParen, RParen,
  LBracket, RBracket, LBrace, RBrace,
];

const EXPRESSION_TOKENS = [
  StringLiteral, BadString, CharLiteral, BadChar, IntegerLiteral, FloatLiteral, MacroVariable,
  AggregationName, Identifier, ...KEYWORDS.map((w) => Kw[w]),
];

export const allTokens: TokenType[] = [
  LexError, StorageClassKw, QualifierKw, BasicTypeKw, BinaryOp, AssignOp,
  ...TRIVIA, ...EXPRESSION_TOKENS, ...OPERATORS, ...OuterKw, OuterTypeName, ProbeSpec, OuterInteger,
  PredStart, PredEnd, DeclEnd, Semi, BadCharacter,
];

// Validations are skipped: they probe custom matchers with token images out of context (a lone
// "/" looks like a predicate's end) and report false conflicts.
const dLexer = new Lexer(
  {
    defaultMode: 'outer',
    modes: {
      outer: [...TRIVIA, ProbeSpec, OuterTypeName, ...OuterKw, OuterInteger, Comma, PredStart, LBrace, BadCharacter],
      pred: [...TRIVIA.slice(0, 2), PredEnd, ...TRIVIA.slice(2), ...EXPRESSION_TOKENS, ...OPERATORS, Semi, BadCharacter],
      body: [...TRIVIA, ...EXPRESSION_TOKENS, ...OPERATORS, Semi, BadCharacter],
      decl: [...TRIVIA, ...EXPRESSION_TOKENS, ...OPERATORS, DeclEnd, BadCharacter],
    },
  },
  // ensureOptimizations: every token must say which characters can start it (start_chars_hint),
  // so Chevrotain tries only those at each character; a token without fails here, at load.
  // onlyStart: a token's end is its start plus its image's length; full tracking's four more
  // fields (NaN-able, so boxed doubles) made each token several allocations (issue 21).
  { positionTracking: 'onlyStart', recoveryEnabled: true, ensureOptimizations: true, skipValidations: true },
);

// ---------------------------------------------------------------------------------------------
// Public entry point
// ---------------------------------------------------------------------------------------------

export interface LexResult {
  /** Tokens for the parser (LexError tokens included, where lexing failed). */
  tokens: IToken[];
  /** Control lines (`#pragma`, `#line`, `#!`...), in source order. */
  controls: IToken[];
}

/** Split D source into tokens. Never throws for bad input: see LexError. */
export function tokenize(source: string, options: LexOptions = {}): LexResult {
  context = { probeMode: options.probeMode ?? false, isTypeName: options.isTypeName ?? (() => false) };
  try {
    const result = dLexer.tokenize(source);
    // Our catch-all BadCharacter token means Chevrotain itself reports errors only for a '}'
    // with no '{' open (pop of the last mode): report those as DTrace does.
    const tokens = result.tokens;
    if (result.errors.length > 0) {
      for (const e of result.errors) {
        const bad = {
          image: source[e.offset] ?? '',
          startOffset: e.offset,
          startLine: e.line,
          startColumn: e.column,
          tokenType: BadCharacter,
          payload: { tag: ErrorTags.D_SYNTAX, message: `syntax error near "${source[e.offset] ?? ''}"` },
        } as IToken;
        insertByOffset(tokens, bad);
      }
    }
    return { tokens, controls: result.groups.control ?? [] };
  } finally {
    context = { probeMode: false, isTypeName: () => false };
  }
}

function insertByOffset(tokens: IToken[], token: IToken): void {
  let i = tokens.length;
  while (i > 0 && tokens[i - 1].startOffset > token.startOffset) i--;
  tokens.splice(i, 0, token);
}

/** Is this token a lexical error? */
export function isLexError(token: IToken): boolean {
  return tokenMatcher(token, LexError);
}

// ---------------------------------------------------------------------------------------------
// Literal values
// ---------------------------------------------------------------------------------------------

const MAX_U64 = (1n << 64n) - 1n;

export interface IntegerValue {
  value: bigint;
  suffix: string;
  decimal: boolean;
}

/** The value of an integer constant as strtoull(text, 0) reads it, or a lexical error. */
export function integerValue(text: string): IntegerValue | LexErrorPayload {
  // The common case, a short decimal without suffix, directly (scripts may hold thousands).
  if (text.length < 16 && /^[1-9][0-9]*$/.test(text)) return { value: BigInt(text), suffix: '', decimal: true };
  let base = 10;
  let i = 0;
  if (/^0[xX]/.test(text)) {
    base = 16;
    i = 2;
  } else if (text[0] === '0') {
    base = 8;
    i = 1;
  }
  let value = 0n;
  const b = BigInt(base);
  for (; i < text.length; i++) {
    const d = parseInt(text[i], 16);
    if (Number.isNaN(d) || d >= base) break;
    value = value * b + BigInt(d);
  }
  if (value > MAX_U64) {
    return { tag: ErrorTags.D_INT_OFLOW, message: `constant ${text} results in integer overflow` };
  }
  const rest = text.slice(i);
  if (rest !== '' && !'uUlL'.includes(rest[0])) {
    return { tag: ErrorTags.D_INT_DIGIT, message: `constant ${text} contains invalid digit ${rest[0]}` };
  }
  const decimal = text[0] !== '0';
  // A decimal constant without u is signed (C's rule, as dt_node_int applies it): past
  // INT64_MAX no built-in type holds it.
  if (decimal && !/u/i.test(rest) && value > MAX_S64) {
    return { tag: ErrorTags.D_INT_OFLOW, message: `integer constant 0x${value.toString(16)} cannot be represented in any built-in integral type` };
  }
  return { value, suffix: rest, decimal };
}

const MAX_S64 = (1n << 63n) - 1n;

/** The escapes libdtrace decodes (besides octal and \x): \? and \' are not among them. */
const SIMPLE_ESCAPES: Record<string, number> = {
  n: 10, t: 9, v: 11, b: 8, r: 13, f: 12, a: 7, '\\': 92, '"': 34,
};

/** Decode C escapes of a string/char body into bytes (source characters as UTF-8). */
export function decodeEscapes(body: string): Uint8Array {
  const out: number[] = [];
  const encoder = new TextEncoder();
  for (let i = 0; i < body.length; i++) {
    const c = body[i];
    if (c !== '\\' || i + 1 >= body.length) {
      const code = body.codePointAt(i)!;
      if (code < 0x80) out.push(code);
      else {
        const ch = String.fromCodePoint(code);
        out.push(...encoder.encode(ch));
        i += ch.length - 1;
      }
      continue;
    }
    const e = body[++i];
    if (e in SIMPLE_ESCAPES) {
      out.push(SIMPLE_ESCAPES[e]);
    } else if (e >= '0' && e <= '7') {
      let v = 0;
      let n = 0;
      while (n < 3 && i < body.length && body[i] >= '0' && body[i] <= '7') {
        v = v * 8 + (body.charCodeAt(i) - 48);
        i++;
        n++;
      }
      i--;
      out.push(v & 0xff);
    } else if (e === 'x') {
      // \x without hex digits is a zero byte, as in DTrace ("\xg" is empty).
      let v = 0;
      while (i + 1 < body.length && /[0-9a-fA-F]/.test(body[i + 1])) {
        v = v * 16 + parseInt(body[++i], 16);
      }
      out.push(v & 0xff);
    } else {
      // Any other escape is kept as written, backslash and all: '\?' is 0x5c3f in DTrace.
      out.push(92, ...encoder.encode(e));
    }
  }
  return Uint8Array.from(out);
}

/** The decoded text of a string literal image (with its quotes). */
export function stringValue(image: string): { value: string; bytes: Uint8Array } {
  const bytes = decodeEscapes(image.slice(1, -1));
  const body = image.slice(1, -1);
  // The display value keeps source characters and turns each escape into its byte as a char.
  let value = '';
  if (!body.includes('\\')) value = body;
  else {
    for (let i = 0; i < body.length; i++) {
      if (body[i] !== '\\') {
        value += body[i];
        continue;
      }
      let j = i + 1;
      if (body[j] >= '0' && body[j] <= '7') {
        let k = 0;
        while (k < 3 && body[j] >= '0' && body[j] <= '7') {
          j++;
          k++;
        }
      } else if (body[j] === 'x' && /[0-9a-fA-F]/.test(body[j + 1] ?? '')) {
        j++;
        while (/[0-9a-fA-F]/.test(body[j] ?? '')) j++;
      } else {
        j++;
      }
      const b = decodeEscapes(body.slice(i, j));
      value += String.fromCharCode(...b);
      i = j - 1;
    }
  }
  // DTrace decodes escapes into a C string, so a NUL ("a\0b") ends the constant there.
  const nul = bytes.indexOf(0);
  if (nul >= 0) return { value: value.slice(0, value.indexOf('\0')), bytes: bytes.slice(0, nul) };
  return { value, bytes };
}

/** The value of a character constant image, packed as DTrace does, or a lexical error. */
export function charValue(image: string): bigint | LexErrorPayload {
  if (image.length === 2) return { tag: ErrorTags.D_CHR_NULL, message: 'empty character constant' };
  const bytes = decodeEscapes(image.slice(1, -1));
  if (bytes.length > 8) return { tag: ErrorTags.D_CHR_OFLOW, message: 'character constant is too long' };
  let v = 0n;
  for (const b of bytes) v = (v << 8n) | BigInt(b);
  return v;
}

// ---------------------------------------------------------------------------------------------
// Control lines (dt_lex.l's S3 state)
// ---------------------------------------------------------------------------------------------

/**
 * Split a control line (without the leading '#') into words: blank-separated words, and quoted
 * strings (decoded). An unterminated string is D_STR_NL.
 */
export function controlWords(line: string): string[] | LexErrorPayload {
  const words: string[] = [];
  let i = 0;
  while (i < line.length) {
    const c = line[i];
    if (' \t\f\v\r'.includes(c)) {
      i++;
    } else if (c === '"') {
      const image = matchAt(/"(?:[^"\\\n]|\\[^\n])*"/y, line, i);
      if (image === null) return { tag: ErrorTags.D_STR_NL, message: 'newline encountered in string literal' };
      words.push(stringValue(image).value);
      i += image.length;
    } else {
      const word = matchAt(/[^\f\n\t\v\r "]+/y, line, i)!;
      words.push(word);
      i += word.length;
    }
  }
  return words;
}

