// Every DIF subroutine, once: its number (dif.h, in constants.ts), the name D calls it by, its
// prototype as libdtrace declares it (dt_open.c's identifier table), its stability, and -- for the
// subroutines of other kernels -- why it cannot apply on Linux. The compiler checks calls against
// it, `dtrace -v` reports its stability, the disassembler names calls by it, and a unit test holds
// the reference machine and the Linux bridge to implementing every subroutine it offers.

import * as D from './constants.js';

/** An argument: a D string or char pointer/array; an integer or pointer; a pointer (or integer). */
export type SubroutineArg = 'string' | 'integer' | 'pointer';

export interface Subroutine {
  subr: number;
  name: string;
  /** The C type it returns, as D names it (string for D strings). */
  returns: string;
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

const S = 'string' as const, I = 'integer' as const, P = 'pointer' as const;
const MUTEX = 'it inspects illumos kernel mutexes';
const RWLOCK = 'it inspects illumos kernel reader/writer locks';
const SXLOCK = 'it inspects FreeBSD sx locks';
const STREAMS = 'it walks STREAMS message blocks';
const FREEBSD = 'it is specific to FreeBSD';

export const SUBROUTINES: readonly Subroutine[] = [
  { subr: D.DIF_SUBR_RAND, name: 'rand', returns: 'int', args: [] },
  { subr: D.DIF_SUBR_MUTEX_OWNED, name: 'mutex_owned', returns: 'int', args: [P], evolving: true, unavailable: MUTEX },
  { subr: D.DIF_SUBR_MUTEX_OWNER, name: 'mutex_owner', returns: 'void *', args: [P], evolving: true, unavailable: MUTEX },
  { subr: D.DIF_SUBR_MUTEX_TYPE_ADAPTIVE, name: 'mutex_type_adaptive', returns: 'int', args: [P], evolving: true, unavailable: MUTEX },
  { subr: D.DIF_SUBR_MUTEX_TYPE_SPIN, name: 'mutex_type_spin', returns: 'int', args: [P], evolving: true, unavailable: MUTEX },
  { subr: D.DIF_SUBR_RW_READ_HELD, name: 'rw_read_held', returns: 'int', args: [P], evolving: true, unavailable: RWLOCK },
  { subr: D.DIF_SUBR_RW_WRITE_HELD, name: 'rw_write_held', returns: 'int', args: [P], evolving: true, unavailable: RWLOCK },
  { subr: D.DIF_SUBR_RW_ISWRITER, name: 'rw_iswriter', returns: 'int', args: [P], evolving: true, unavailable: RWLOCK },
  { subr: D.DIF_SUBR_COPYIN, name: 'copyin', returns: 'void *', args: [I, I] },
  { subr: D.DIF_SUBR_COPYINSTR, name: 'copyinstr', returns: 'string', args: [I, I], optional: 1 },
  { subr: D.DIF_SUBR_SPECULATION, name: 'speculation', returns: 'int', args: [] },
  { subr: D.DIF_SUBR_PROGENYOF, name: 'progenyof', returns: 'int', args: [I] },
  { subr: D.DIF_SUBR_STRLEN, name: 'strlen', returns: 'size_t', args: [S] },
  { subr: D.DIF_SUBR_COPYOUT, name: 'copyout', returns: 'void', args: [P, I, I], destructive: true },
  { subr: D.DIF_SUBR_COPYOUTSTR, name: 'copyoutstr', returns: 'void', args: [S, I, I], destructive: true },
  { subr: D.DIF_SUBR_ALLOCA, name: 'alloca', returns: 'void *', args: [I] },
  { subr: D.DIF_SUBR_BCOPY, name: 'bcopy', returns: 'void', args: [P, P, I] },
  { subr: D.DIF_SUBR_COPYINTO, name: 'copyinto', returns: 'void', args: [I, I, P] },
  { subr: D.DIF_SUBR_MSGDSIZE, name: 'msgdsize', returns: 'size_t', args: [P], unavailable: STREAMS },
  { subr: D.DIF_SUBR_MSGSIZE, name: 'msgsize', returns: 'size_t', args: [P], unavailable: STREAMS },
  { subr: D.DIF_SUBR_GETMAJOR, name: 'getmajor', returns: 'major_t', args: [I], evolving: true },
  { subr: D.DIF_SUBR_GETMINOR, name: 'getminor', returns: 'minor_t', args: [I], evolving: true },
  { subr: D.DIF_SUBR_DDI_PATHNAME, name: 'ddi_pathname', returns: 'string', args: [P, I], evolving: true, unavailable: 'it walks the illumos device tree' },
  { subr: D.DIF_SUBR_STRJOIN, name: 'strjoin', returns: 'string', args: [S, S] },
  { subr: D.DIF_SUBR_LLTOSTR, name: 'lltostr', returns: 'string', args: [I, I], optional: 1 },
  { subr: D.DIF_SUBR_BASENAME, name: 'basename', returns: 'string', args: [S] },
  { subr: D.DIF_SUBR_DIRNAME, name: 'dirname', returns: 'string', args: [S] },
  { subr: D.DIF_SUBR_CLEANPATH, name: 'cleanpath', returns: 'string', args: [S] },
  { subr: D.DIF_SUBR_STRCHR, name: 'strchr', returns: 'string', args: [S, I] },
  { subr: D.DIF_SUBR_STRRCHR, name: 'strrchr', returns: 'string', args: [S, I] },
  { subr: D.DIF_SUBR_STRSTR, name: 'strstr', returns: 'string', args: [S, S] },
  { subr: D.DIF_SUBR_STRTOK, name: 'strtok', returns: 'string', args: [S, S] },
  { subr: D.DIF_SUBR_SUBSTR, name: 'substr', returns: 'string', args: [S, I, I], optional: 1 },
  { subr: D.DIF_SUBR_INDEX, name: 'index', returns: 'int', args: [S, S, I], optional: 1 },
  { subr: D.DIF_SUBR_RINDEX, name: 'rindex', returns: 'int', args: [S, S, I], optional: 1 },
  { subr: D.DIF_SUBR_HTONS, name: 'htons', returns: 'uint16_t', args: [I], evolving: true },
  { subr: D.DIF_SUBR_HTONL, name: 'htonl', returns: 'uint32_t', args: [I], evolving: true },
  { subr: D.DIF_SUBR_HTONLL, name: 'htonll', returns: 'uint64_t', args: [I], evolving: true },
  { subr: D.DIF_SUBR_NTOHS, name: 'ntohs', returns: 'uint16_t', args: [I], evolving: true },
  { subr: D.DIF_SUBR_NTOHL, name: 'ntohl', returns: 'uint32_t', args: [I], evolving: true },
  { subr: D.DIF_SUBR_NTOHLL, name: 'ntohll', returns: 'uint64_t', args: [I], evolving: true },
  { subr: D.DIF_SUBR_INET_NTOP, name: 'inet_ntop', returns: 'string', args: [I, P] },
  { subr: D.DIF_SUBR_INET_NTOA, name: 'inet_ntoa', returns: 'string', args: [P] },
  { subr: D.DIF_SUBR_INET_NTOA6, name: 'inet_ntoa6', returns: 'string', args: [P] },
  { subr: D.DIF_SUBR_TOUPPER, name: 'toupper', returns: 'string', args: [S] },
  { subr: D.DIF_SUBR_TOLOWER, name: 'tolower', returns: 'string', args: [S] },
  { subr: D.DIF_SUBR_GETF, name: 'getf', returns: 'void *', args: [I], unavailable: 'it returns an illumos file_t' },
  { subr: D.DIF_SUBR_JSON, name: 'json', returns: 'string', args: [S, S] },
  { subr: D.DIF_SUBR_STRTOLL, name: 'strtoll', returns: 'long', args: [S, I], optional: 1 },
  {
    subr: D.DIF_SUBR_D_PATH, name: 'd_path', returns: 'string', args: [P], evolving: true,
    unavailable: 'the kernel offers bpf_d_path() only to fentry/LSM programs, which this kernel refuses',
  },
  { subr: D.DIF_SUBR_LINK_NTOP, name: 'link_ntop', returns: 'string', args: [I, P], unavailable: 'this dtrace does not implement it yet' },
  { subr: D.DIF_SUBR_MEMREF, name: 'memref', returns: 'uintptr_t *', args: [P, I], unavailable: FREEBSD },
  { subr: D.DIF_SUBR_MEMSTR, name: 'memstr', returns: 'string', args: [P, I, I], unavailable: FREEBSD },
  { subr: D.DIF_SUBR_SX_SHARED_HELD, name: 'sx_shared_held', returns: 'int', args: [P], unavailable: SXLOCK },
  { subr: D.DIF_SUBR_SX_EXCLUSIVE_HELD, name: 'sx_exclusive_held', returns: 'int', args: [P], unavailable: SXLOCK },
  { subr: D.DIF_SUBR_SX_ISEXCLUSIVE, name: 'sx_isexclusive', returns: 'int', args: [P], unavailable: SXLOCK },
];

export const SUBROUTINE_BY_NAME: ReadonlyMap<string, Subroutine> = new Map(SUBROUTINES.map((s) => [s.name, s]));
const BY_NUMBER: ReadonlyMap<number, Subroutine> = new Map(SUBROUTINES.map((s) => [s.subr, s]));

/** The name libdtrace's dtrace_subrstr() gives a subroutine number ("unknown" when none). */
export function subrName(subr: number): string {
  return BY_NUMBER.get(subr)?.name ?? 'unknown';
}
