// Every DIF subroutine, once: its number (dif.h, in constants.ts), the name D calls it by, its
// prototype as libdtrace declares it (dt_open.c's identifier table), its stability, and -- for the
// subroutines of other kernels -- why it cannot apply on Linux. The compiler checks calls against
// it, `dtrace -v` reports its stability, the disassembler names calls by it, and a unit test holds
// the reference machine and the Linux bridge to implementing every subroutine it offers.

import * as D from './constants.js';

/**
 * An argument's type as the prototype declares it, which is also what a mismatch message shows
 * (`prototype: char *`): `char *` takes a D string (or a char pointer or array), another pointer
 * type a pointer, anything else an integer.
 */
export type SubroutineArg = string;

/** How an argument of the given prototype type is checked. */
export function argKind(t: SubroutineArg): 'string' | 'pointer' | 'integer' {
  return t === 'char *' ? 'string' : t.endsWith('*') ? 'pointer' : 'integer';
}

export interface Subroutine {
  subr: number;
  name: string;
  /** The C type it returns, as D names it (string for D strings). */
  returns: string;
  /** Argument types as dt_open.c's prototypes spell them (the reference DTrace's messages show them). */
  args: SubroutineArg[];
  /** Trailing arguments that may be left out. */
  optional?: number;
  /** Evolving/Evolving/Common, as dt_open.c marks it; the others are Stable/Stable/Common. */
  evolving?: true;
  /** A subroutine of another kernel: why it cannot apply on Linux (the compiler says so). */
  unavailable?: string;
  /** A destructive action (copyout, copyoutstr): compiled as one, allowed only with -w. */
  destructive?: true;
}

const MUTEX = 'it inspects illumos kernel mutexes';
const RWLOCK = 'it inspects illumos kernel reader/writer locks';
const SXLOCK = 'it inspects FreeBSD sx locks';
const STREAMS = 'it walks STREAMS message blocks';
const FREEBSD = 'it is specific to FreeBSD';

export const SUBROUTINES: readonly Subroutine[] = [
  { subr: D.DIF_SUBR_RAND, name: 'rand', returns: 'int', args: [] },
  { subr: D.DIF_SUBR_MUTEX_OWNED, name: 'mutex_owned', returns: 'int', args: ['struct mutex *'], evolving: true, unavailable: MUTEX },
  { subr: D.DIF_SUBR_MUTEX_OWNER, name: 'mutex_owner', returns: 'void *', args: ['struct mutex *'], evolving: true, unavailable: MUTEX },
  { subr: D.DIF_SUBR_MUTEX_TYPE_ADAPTIVE, name: 'mutex_type_adaptive', returns: 'int', args: ['struct mutex *'], evolving: true, unavailable: MUTEX },
  { subr: D.DIF_SUBR_MUTEX_TYPE_SPIN, name: 'mutex_type_spin', returns: 'int', args: ['struct mutex *'], evolving: true, unavailable: MUTEX },
  { subr: D.DIF_SUBR_RW_READ_HELD, name: 'rw_read_held', returns: 'int', args: ['rwlock_t *'], evolving: true, unavailable: RWLOCK },
  { subr: D.DIF_SUBR_RW_WRITE_HELD, name: 'rw_write_held', returns: 'int', args: ['rwlock_t *'], evolving: true, unavailable: RWLOCK },
  { subr: D.DIF_SUBR_RW_ISWRITER, name: 'rw_iswriter', returns: 'int', args: ['rwlock_t *'], evolving: true, unavailable: RWLOCK },
  { subr: D.DIF_SUBR_COPYIN, name: 'copyin', returns: 'void *', args: ['uintptr_t', 'size_t'] },
  { subr: D.DIF_SUBR_COPYINSTR, name: 'copyinstr', returns: 'string', args: ['uintptr_t', 'size_t'], optional: 1 },
  { subr: D.DIF_SUBR_SPECULATION, name: 'speculation', returns: 'int', args: [] },
  { subr: D.DIF_SUBR_PROGENYOF, name: 'progenyof', returns: 'int', args: ['pid_t'] },
  { subr: D.DIF_SUBR_STRLEN, name: 'strlen', returns: 'size_t', args: ['char *'] },
  { subr: D.DIF_SUBR_COPYOUT, name: 'copyout', returns: 'void', args: ['void *', 'uintptr_t', 'size_t'], destructive: true },
  { subr: D.DIF_SUBR_COPYOUTSTR, name: 'copyoutstr', returns: 'void', args: ['char *', 'uintptr_t', 'size_t'], destructive: true },
  { subr: D.DIF_SUBR_ALLOCA, name: 'alloca', returns: 'void *', args: ['size_t'] },
  { subr: D.DIF_SUBR_BCOPY, name: 'bcopy', returns: 'void', args: ['void *', 'void *', 'size_t'] },
  { subr: D.DIF_SUBR_COPYINTO, name: 'copyinto', returns: 'void', args: ['uintptr_t', 'size_t', 'void *'] },
  { subr: D.DIF_SUBR_MSGDSIZE, name: 'msgdsize', returns: 'size_t', args: ['mblk_t *'], unavailable: STREAMS },
  { subr: D.DIF_SUBR_MSGSIZE, name: 'msgsize', returns: 'size_t', args: ['mblk_t *'], unavailable: STREAMS },
  { subr: D.DIF_SUBR_GETMAJOR, name: 'getmajor', returns: 'major_t', args: ['dev_t'], evolving: true },
  { subr: D.DIF_SUBR_GETMINOR, name: 'getminor', returns: 'minor_t', args: ['dev_t'], evolving: true },
  { subr: D.DIF_SUBR_DDI_PATHNAME, name: 'ddi_pathname', returns: 'string', args: ['void *', 'int64_t'], evolving: true, unavailable: 'it walks the illumos device tree' },
  { subr: D.DIF_SUBR_STRJOIN, name: 'strjoin', returns: 'string', args: ['char *', 'char *'] },
  { subr: D.DIF_SUBR_LLTOSTR, name: 'lltostr', returns: 'string', args: ['int64_t', 'int'], optional: 1 },
  { subr: D.DIF_SUBR_BASENAME, name: 'basename', returns: 'string', args: ['char *'] },
  { subr: D.DIF_SUBR_DIRNAME, name: 'dirname', returns: 'string', args: ['char *'] },
  { subr: D.DIF_SUBR_CLEANPATH, name: 'cleanpath', returns: 'string', args: ['char *'] },
  { subr: D.DIF_SUBR_STRCHR, name: 'strchr', returns: 'string', args: ['char *', 'char'] },
  { subr: D.DIF_SUBR_STRRCHR, name: 'strrchr', returns: 'string', args: ['char *', 'char'] },
  { subr: D.DIF_SUBR_STRSTR, name: 'strstr', returns: 'string', args: ['char *', 'char *'] },
  { subr: D.DIF_SUBR_STRTOK, name: 'strtok', returns: 'string', args: ['char *', 'char *'] },
  { subr: D.DIF_SUBR_SUBSTR, name: 'substr', returns: 'string', args: ['char *', 'int', 'int'], optional: 1 },
  { subr: D.DIF_SUBR_INDEX, name: 'index', returns: 'int', args: ['char *', 'char *', 'int'], optional: 1 },
  { subr: D.DIF_SUBR_RINDEX, name: 'rindex', returns: 'int', args: ['char *', 'char *', 'int'], optional: 1 },
  { subr: D.DIF_SUBR_HTONS, name: 'htons', returns: 'uint16_t', args: ['uint16_t'], evolving: true },
  { subr: D.DIF_SUBR_HTONL, name: 'htonl', returns: 'uint32_t', args: ['uint32_t'], evolving: true },
  { subr: D.DIF_SUBR_HTONLL, name: 'htonll', returns: 'uint64_t', args: ['uint64_t'], evolving: true },
  { subr: D.DIF_SUBR_NTOHS, name: 'ntohs', returns: 'uint16_t', args: ['uint16_t'], evolving: true },
  { subr: D.DIF_SUBR_NTOHL, name: 'ntohl', returns: 'uint32_t', args: ['uint32_t'], evolving: true },
  { subr: D.DIF_SUBR_NTOHLL, name: 'ntohll', returns: 'uint64_t', args: ['uint64_t'], evolving: true },
  { subr: D.DIF_SUBR_INET_NTOP, name: 'inet_ntop', returns: 'string', args: ['int', 'void *'] },
  { subr: D.DIF_SUBR_INET_NTOA, name: 'inet_ntoa', returns: 'string', args: ['unsigned int *'] },
  { subr: D.DIF_SUBR_INET_NTOA6, name: 'inet_ntoa6', returns: 'string', args: ['struct in6_addr *'] },
  { subr: D.DIF_SUBR_TOUPPER, name: 'toupper', returns: 'string', args: ['char *'] },
  { subr: D.DIF_SUBR_TOLOWER, name: 'tolower', returns: 'string', args: ['char *'] },
  { subr: D.DIF_SUBR_GETF, name: 'getf', returns: 'void *', args: ['int'], unavailable: 'it returns an illumos file_t' },
  { subr: D.DIF_SUBR_JSON, name: 'json', returns: 'string', args: ['char *', 'char *'] },
  { subr: D.DIF_SUBR_STRTOLL, name: 'strtoll', returns: 'long', args: ['char *', 'int'], optional: 1 },
  {
    subr: D.DIF_SUBR_D_PATH, name: 'd_path', returns: 'string', args: ['struct path *'], evolving: true,
    unavailable: 'the kernel offers bpf_d_path() only to fentry/LSM programs, which this kernel refuses',
  },
  { subr: D.DIF_SUBR_LINK_NTOP, name: 'link_ntop', returns: 'string', args: ['int', 'void *'], unavailable: 'this dtrace does not implement it yet' },
  { subr: D.DIF_SUBR_MEMREF, name: 'memref', returns: 'uintptr_t *', args: ['uintptr_t', 'size_t'], unavailable: FREEBSD },
  { subr: D.DIF_SUBR_MEMSTR, name: 'memstr', returns: 'string', args: ['void *', 'char', 'size_t'] },
  { subr: D.DIF_SUBR_SX_SHARED_HELD, name: 'sx_shared_held', returns: 'int', args: ['struct sx *'], unavailable: SXLOCK },
  { subr: D.DIF_SUBR_SX_EXCLUSIVE_HELD, name: 'sx_exclusive_held', returns: 'int', args: ['struct sx *'], unavailable: SXLOCK },
  { subr: D.DIF_SUBR_SX_ISEXCLUSIVE, name: 'sx_isexclusive', returns: 'int', args: ['struct sx *'], unavailable: SXLOCK },
  // array_bound(index, count, size): index, or a BADINDEX fault when index * size is not below
  // count * size (unsigned); a name D cannot spell, as only the compiler emits it.
  { subr: D.DIF_SUBR_ARRAY_BOUND, name: '<array bound>', returns: 'uint64_t', args: ['uint64_t', 'uint64_t', 'uint64_t'] },
];

export const SUBROUTINE_BY_NAME: ReadonlyMap<string, Subroutine> = new Map(SUBROUTINES.map((s) => [s.name, s]));
const BY_NUMBER: ReadonlyMap<number, Subroutine> = new Map(SUBROUTINES.map((s) => [s.subr, s]));

/** The name libdtrace's dtrace_subrstr() gives a subroutine number ("unknown" when none). */
export function subrName(subr: number): string {
  return BY_NUMBER.get(subr)?.name ?? 'unknown';
}

/**
 * The prototypes of D's actions and aggregating functions as DTrace declares them: argument types
 * (`@` any type, `aggregation` an @name), how many may be left out at the end, and whether more
 * may follow (printf's format arguments). The compiler checks a call's count against them before
 * anything else and shows these types in its mismatch messages.
 */
export interface ActionPrototype {
  args: readonly string[];
  optional?: number;
  varargs?: true;
}

const AGG = 'aggregation';
export const ACTION_PROTOTYPES: ReadonlyMap<string, ActionPrototype> = new Map<string, ActionPrototype>([
  ['trace', { args: ['@'] }],
  ['print', { args: ['@'] }],
  ['exit', { args: ['int'] }],
  ['printf', { args: ['string'], varargs: true }],
  ['printa', { args: ['@'], varargs: true }],
  ['system', { args: ['@'], varargs: true }],
  ['freopen', { args: ['@'], varargs: true }],
  ['setopt', { args: ['char *', 'char *'], optional: 1 }],
  ['ftruncate', { args: [] }],
  ['clear', { args: [AGG] }],
  ['denormalize', { args: [AGG] }],
  ['normalize', { args: [AGG, 'uint64_t'] }],
  ['trunc', { args: [AGG, 'int64_t'], optional: 1 }],
  ['tracemem', { args: ['@', 'size_t', 'size_t'], optional: 1 }],
  ['stack', { args: ['uint32_t'], optional: 1 }],
  ['ustack', { args: ['uint32_t', 'uint32_t'], optional: 2 }],
  ['jstack', { args: ['uint32_t', 'uint32_t'], optional: 2 }],
  ['raise', { args: ['int'] }],
  ['chill', { args: ['int'] }],
  ['speculate', { args: ['int'] }],
  ['commit', { args: ['int'] }],
  ['discard', { args: ['int'] }],
  ['stop', { args: [] }],
  ['breakpoint', { args: [] }],
  ['panic', { args: [] }],
]);

/** An action call's argument count against its prototype: [min, max] (max Infinity for varargs). */
export function actionArity(p: ActionPrototype): [number, number] {
  return [p.args.length - (p.optional ?? 0), p.varargs ? Infinity : p.args.length];
}
