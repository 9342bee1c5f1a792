/**
 * D compiler errors and their rendering as dtrace(1) prints them.
 *
 * libdtrace builds a compile error message as
 *   ["[" TAG "] "] + ( "\"FILE\", line N: " | "line N: " | "in REGION: " ) + message
 * where the tag appears only under -xerrtags, the file only when a `#line`/cpp marker named one,
 * the line only when compiling a file (-s), and the region (e.g. "in action list") only when there
 * is no line. dtrace(1) then prefixes "dtrace: failed to compile script NAME: " for -s scripts and
 * "dtrace: invalid probe specifier TEXT: " for -n/-P/-m/-f descriptions.
 */

/** Error tags (libdtrace dt_errtag_t names) used by the front end. */
export const ErrorTags = {
  D_UNKNOWN: 'D_UNKNOWN',
  D_SYNTAX: 'D_SYNTAX',
  D_EMPTY: 'D_EMPTY',
  D_PDESC_INVAL: 'D_PDESC_INVAL',
  D_PRAGCTL_INVAL: 'D_PRAGCTL_INVAL',
  D_PRAGMA_MALFORM: 'D_PRAGMA_MALFORM',
  D_MACRO_UNDEF: 'D_MACRO_UNDEF',
  D_INT_OFLOW: 'D_INT_OFLOW',
  D_INT_DIGIT: 'D_INT_DIGIT',
  D_STR_NL: 'D_STR_NL',
  D_CHR_NL: 'D_CHR_NL',
  D_CHR_NULL: 'D_CHR_NULL',
  D_CHR_OFLOW: 'D_CHR_OFLOW',
  D_DECL_COMBO: 'D_DECL_COMBO',
  D_DECL_TYPERED: 'D_DECL_TYPERED',
} as const;

export interface DtraceErrorOptions {
  line?: number;
  column?: number;
  file?: string;
  region?: string;
}

/**
 * A D compilation error. `message` is the bare text ("syntax error near \"}\""), without the
 * "dtrace:" prefix, tag or line: formatCompileError() adds those as dtrace(1) does.
 */
export class DtraceError extends Error {
  /** libdtrace error tag, e.g. "D_SYNTAX". */
  tag: string;
  /** 1-based line (of the physical script, or as set by `#line`). */
  line?: number;
  /** 1-based column, for tools; dtrace(1) never prints it. */
  column?: number;
  /** File tag from a `#line N "file"` / cpp marker; dtrace(1) prints `"file", line N:` then. */
  file?: string;
  /** Region such as "action list" or "predicate", printed as `in REGION:` when there is no line. */
  region?: string;
  /**
   * What this system lacks that caused the error (an unknown type name). Never part of the
   * message (DTrace's bytes): dtrace(1) prints it on a line of its own at a terminal only.
   */
  hint?: string;

  constructor(tag: string, message: string, options: DtraceErrorOptions = {}) {
    super(message);
    this.name = 'DtraceError';
    this.tag = tag;
    this.line = options.line;
    this.column = options.column;
    this.file = options.file;
    this.region = options.region;
  }
}

export interface FormatOptions {
  /**
   * 'script' for `dtrace -s NAME` (line numbers are shown);
   * 'probe' for `dtrace -n/-P/-m/-f TEXT` (compiled from a string: no line numbers).
   */
  mode: 'script' | 'probe';
  /** The script path (script mode) or the probe description text (probe mode). */
  source: string;
  /** -xerrtags: prefix the message with "[TAG] ". */
  errtags?: boolean;
  /** Program name; dtrace(1) uses its argv[0] basename. */
  program?: string;
}

/** The libdtrace error message (dtrace_errmsg) for a compile error, without the command prefix. */
export function compileErrorMessage(err: DtraceError, mode: 'script' | 'probe', errtags = false): string {
  let s = errtags && err.tag ? `[${err.tag}] ` : '';
  if (err.file !== undefined) {
    s += `"${err.file}", line ${err.line ?? 0}: `;
  } else if (mode === 'script' && err.line !== undefined && err.line !== 0) {
    s += `line ${err.line}: `;
  } else if (err.region) {
    s += `in ${err.region}: `;
  }
  return s + err.message;
}

/**
 * Render a compile error exactly as dtrace(1) prints it (no trailing newline), e.g.
 * `dtrace: failed to compile script x.d: line 3: syntax error near "}"`.
 */
export function formatCompileError(err: DtraceError, options: FormatOptions): string {
  const program = options.program ?? 'dtrace';
  const what = options.mode === 'script'
    ? `failed to compile script ${options.source}`
    : `invalid probe specifier ${options.source}`;
  return `${program}: ${what}: ${compileErrorMessage(err, options.mode, options.errtags)}`;
}

/**
 * A call's argument count against its prototype (D_PROTO_LEN), worded as DTrace words it:
 * "N args passed, M expected" for a fixed count, "at least M" when too few of a prototype with
 * optional or variable arguments were passed, "at most M" when too many ("1 arg", not "1 args").
 * `max` is Infinity for variable arguments. Returns the message, or null when the count fits.
 */
export function protoLenMessage(name: string, passed: number, min: number, max = min, brackets = '( )'): string | null {
  if (passed >= min && passed <= max) return null;
  const want = min === max ? `${min}` : passed < min ? `at least ${min}` : `at most ${max}`;
  return `${name}${brackets} prototype mismatch: ${passed} arg${passed === 1 ? '' : 's'} passed, ${want} expected`;
}

/** An argument that does not fit its prototype (D_PROTO_ARG), showing both types. */
export function protoArgMessage(name: string, argn: number, prototype: string, argument: string): string {
  return `${name}( ) argument #${argn} is incompatible with prototype:\n\tprototype: ${prototype}\n\t argument: ${argument}`;
}
