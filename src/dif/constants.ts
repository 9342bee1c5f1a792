// DIF (DTrace Intermediate Format) constants.
//
// Numbers are those of the published DTrace headers: illumos sys/dtrace.h first, then the additions
// of DTrace for Linux (oracle dtrace-utils include/dtrace/*.h) and FreeBSD where illumos has none.
// Where the lists disagree, illumos wins and the other number is noted next to the constant.

// ---------------------------------------------------------------------------------------------
// Versions and machine shape

export const DIF_VERSION_1 = 1;
export const DIF_VERSION_2 = 2;
export const DIF_VERSION = DIF_VERSION_2;
export const DIF_DIR_NREGS = 8; // integer registers
export const DIF_DTR_NREGS = 8; // tuple registers
/** The tuple stack's entries: as DTrace for Linux counts its tuple registers, tregs + 1 (-x tregs's default). */
export const DIF_DTR_STACK = DIF_DTR_NREGS + 1;

export const DIF_INTOFF_MAX = 0xffff;
export const DIF_STROFF_MAX = 0xffff; // DTrace for Linux lowers this to 0x7fff
export const DIF_REGISTER_MAX = 0xff;
export const DIF_VARIABLE_MAX = 0xffff;
export const DIF_SUBROUTINE_MAX = 0xffff;
export const DIF_REG_R0 = 0; // %r0 always reads as zero

// ---------------------------------------------------------------------------------------------
// Opcodes

export const DIF_OP_OR = 1;
export const DIF_OP_XOR = 2;
export const DIF_OP_AND = 3;
export const DIF_OP_SLL = 4;
export const DIF_OP_SRL = 5;
export const DIF_OP_SUB = 6;
export const DIF_OP_ADD = 7;
export const DIF_OP_MUL = 8;
export const DIF_OP_SDIV = 9;
export const DIF_OP_UDIV = 10;
export const DIF_OP_SREM = 11;
export const DIF_OP_UREM = 12;
export const DIF_OP_NOT = 13;
export const DIF_OP_MOV = 14;
export const DIF_OP_CMP = 15;
export const DIF_OP_TST = 16;
export const DIF_OP_BA = 17;
export const DIF_OP_BE = 18;
export const DIF_OP_BNE = 19;
export const DIF_OP_BG = 20;
export const DIF_OP_BGU = 21;
export const DIF_OP_BGE = 22;
export const DIF_OP_BGEU = 23;
export const DIF_OP_BL = 24;
export const DIF_OP_BLU = 25;
export const DIF_OP_BLE = 26;
export const DIF_OP_BLEU = 27;
export const DIF_OP_LDSB = 28;
export const DIF_OP_LDSH = 29;
export const DIF_OP_LDSW = 30;
export const DIF_OP_LDUB = 31;
export const DIF_OP_LDUH = 32;
export const DIF_OP_LDUW = 33;
export const DIF_OP_LDX = 34;
export const DIF_OP_RET = 35;
export const DIF_OP_NOP = 36;
export const DIF_OP_SETX = 37;
export const DIF_OP_SETS = 38;
export const DIF_OP_SCMP = 39;
export const DIF_OP_LDGA = 40;
export const DIF_OP_LDGS = 41;
export const DIF_OP_STGS = 42;
export const DIF_OP_LDTA = 43;
export const DIF_OP_LDTS = 44;
export const DIF_OP_STTS = 45;
export const DIF_OP_SRA = 46;
export const DIF_OP_CALL = 47;
export const DIF_OP_PUSHTR = 48;
export const DIF_OP_PUSHTV = 49;
export const DIF_OP_POPTS = 50;
export const DIF_OP_FLUSHTS = 51;
export const DIF_OP_LDGAA = 52;
export const DIF_OP_LDTAA = 53;
export const DIF_OP_STGAA = 54;
export const DIF_OP_STTAA = 55;
export const DIF_OP_LDLS = 56;
export const DIF_OP_STLS = 57;
export const DIF_OP_ALLOCS = 58;
export const DIF_OP_COPYS = 59;
export const DIF_OP_STB = 60;
export const DIF_OP_STH = 61;
export const DIF_OP_STW = 62;
export const DIF_OP_STX = 63;
export const DIF_OP_ULDSB = 64;
export const DIF_OP_ULDSH = 65;
export const DIF_OP_ULDSW = 66;
export const DIF_OP_ULDUB = 67;
export const DIF_OP_ULDUH = 68;
export const DIF_OP_ULDUW = 69;
export const DIF_OP_ULDX = 70;
export const DIF_OP_RLDSB = 71;
export const DIF_OP_RLDSH = 72;
export const DIF_OP_RLDSW = 73;
export const DIF_OP_RLDUB = 74;
export const DIF_OP_RLDUH = 75;
export const DIF_OP_RLDUW = 76; // the OpenDTrace spec numbers RLDUW 75 by mistake; the headers say 76
export const DIF_OP_RLDX = 77;
export const DIF_OP_XLATE = 78;
export const DIF_OP_XLARG = 79;

/** Where a load reads: kernel memory (LD*), DTrace-restricted memory (RLD*) or the traced process (ULD*). */
export type DifLoadSpace = 'kernel' | 'restricted' | 'user';

/** Every load opcode's width, signedness and address space. */
export const DIF_LOADS: ReadonlyMap<number, { size: 1 | 2 | 4 | 8; signed: boolean; space: DifLoadSpace }> = new Map(
  ([
    ['kernel', [DIF_OP_LDSB, DIF_OP_LDSH, DIF_OP_LDSW, DIF_OP_LDUB, DIF_OP_LDUH, DIF_OP_LDUW, DIF_OP_LDX]],
    ['restricted', [DIF_OP_RLDSB, DIF_OP_RLDSH, DIF_OP_RLDSW, DIF_OP_RLDUB, DIF_OP_RLDUH, DIF_OP_RLDUW, DIF_OP_RLDX]],
    ['user', [DIF_OP_ULDSB, DIF_OP_ULDSH, DIF_OP_ULDSW, DIF_OP_ULDUB, DIF_OP_ULDUH, DIF_OP_ULDUW, DIF_OP_ULDX]],
  ] as const).flatMap(([space, ops]) => ops.map((op, i) => [op, {
    size: ([1, 2, 4, 1, 2, 4, 8] as const)[i], signed: i < 3, space,
  }] as const)),
);

/** The load opcode for a width, signedness and space (8-byte loads are LDX whatever the sign). */
export function difLoadOp(size: 1 | 2 | 4 | 8, signed: boolean, space: DifLoadSpace): number {
  for (const [op, l] of DIF_LOADS) if (l.space === space && l.size === size && (size === 8 || l.signed === signed)) return op;
  throw new Error(`no ${size}-byte ${space} load`);
}

/** Every store opcode's width. */
export const DIF_STORES: ReadonlyMap<number, 1 | 2 | 4 | 8> = new Map([
  [DIF_OP_STB, 1], [DIF_OP_STH, 2], [DIF_OP_STW, 4], [DIF_OP_STX, 8],
]);

export const DIF_OP_MAX = DIF_OP_XLARG;

/** Mnemonics indexed by opcode, as the disassembler prints them ("" for opcode 0). */
export const DIF_OP_NAMES: readonly string[] = [
  '', 'or', 'xor', 'and', 'sll', 'srl', 'sub', 'add', 'mul', 'sdiv', 'udiv', 'srem', 'urem', 'not',
  'mov', 'cmp', 'tst', 'ba', 'be', 'bne', 'bg', 'bgu', 'bge', 'bgeu', 'bl', 'blu', 'ble', 'bleu',
  'ldsb', 'ldsh', 'ldsw', 'ldub', 'lduh', 'lduw', 'ldx', 'ret', 'nop', 'setx', 'sets', 'scmp',
  'ldga', 'ldgs', 'stgs', 'ldta', 'ldts', 'stts', 'sra', 'call', 'pushtr', 'pushtv', 'popts',
  'flushts', 'ldgaa', 'ldtaa', 'stgaa', 'sttaa', 'ldls', 'stls', 'allocs', 'copys', 'stb', 'sth',
  'stw', 'stx', 'uldsb', 'uldsh', 'uldsw', 'uldub', 'ulduh', 'ulduw', 'uldx', 'rldsb', 'rldsh',
  'rldsw', 'rldub', 'rlduh', 'rlduw', 'rldx', 'xlate', 'xlarg',
];

// ---------------------------------------------------------------------------------------------
// Variables

export const DIF_VAR_ARRAY_MIN = 0x0000;
export const DIF_VAR_ARRAY_UBASE = 0x0080; // first user-defined array
export const DIF_VAR_ARRAY_MAX = 0x00ff;
export const DIF_VAR_OTHER_MIN = 0x0100;
export const DIF_VAR_OTHER_UBASE = 0x0500; // first user-defined scalar or associative array
export const DIF_VAR_OTHER_MAX = 0xffff;

export const DIF_VAR_ARGS = 0x0000;
export const DIF_VAR_REGS = 0x0001;
export const DIF_VAR_UREGS = 0x0002;
export const DIF_VAR_VMREGS = 0x0003; // illumos only (bhyve guests)
export const DIF_VAR_CURTHREAD = 0x0100;
export const DIF_VAR_TIMESTAMP = 0x0101;
export const DIF_VAR_VTIMESTAMP = 0x0102;
export const DIF_VAR_IPL = 0x0103;
export const DIF_VAR_EPID = 0x0104;
export const DIF_VAR_ID = 0x0105;
export const DIF_VAR_ARG0 = 0x0106;
export const DIF_VAR_ARG1 = 0x0107;
export const DIF_VAR_ARG2 = 0x0108;
export const DIF_VAR_ARG3 = 0x0109;
export const DIF_VAR_ARG4 = 0x010a;
export const DIF_VAR_ARG5 = 0x010b;
export const DIF_VAR_ARG6 = 0x010c;
export const DIF_VAR_ARG7 = 0x010d;
export const DIF_VAR_ARG8 = 0x010e;
export const DIF_VAR_ARG9 = 0x010f;
export const DIF_VAR_STACKDEPTH = 0x0110;
export const DIF_VAR_CALLER = 0x0111;
export const DIF_VAR_PROBEPROV = 0x0112;
export const DIF_VAR_PROBEMOD = 0x0113;
export const DIF_VAR_PROBEFUNC = 0x0114;
export const DIF_VAR_PROBENAME = 0x0115;
export const DIF_VAR_PID = 0x0116;
export const DIF_VAR_TID = 0x0117;
export const DIF_VAR_EXECNAME = 0x0118;
export const DIF_VAR_ZONENAME = 0x0119;
export const DIF_VAR_WALLTIMESTAMP = 0x011a;
export const DIF_VAR_USTACKDEPTH = 0x011b;
export const DIF_VAR_UCALLER = 0x011c;
export const DIF_VAR_PPID = 0x011d;
export const DIF_VAR_UID = 0x011e;
export const DIF_VAR_GID = 0x011f;
export const DIF_VAR_ERRNO = 0x0120;
// DTrace for Linux. (FreeBSD uses 0x0121..0x0123 for execargs, jid and jailname instead.)
export const DIF_VAR_CURCPU = 0x0121;
// RFD 2's DIF_VAR_PROBEISTC (the firing probe's instance), which no DTrace has numbered: ours.
export const DIF_VAR_PROBEINSTANCE = 0x0140;

/**
 * Built-in variables as D spells them, with the D type each has when a program reads it by name
 * (args[], regs[] and uregs[] are typed where they are indexed; ipl has none
 * here). The compiler, the disassembler and the reference machine read this one list.
 */
export const BUILTIN_VARIABLES: readonly { name: string; id: number; type?: string }[] = [
  { name: 'args', id: DIF_VAR_ARGS },
  { name: 'regs', id: DIF_VAR_REGS },
  { name: 'uregs', id: DIF_VAR_UREGS },
  { name: 'vmregs', id: DIF_VAR_VMREGS },
  { name: 'curthread', id: DIF_VAR_CURTHREAD, type: 'struct task_struct *' },
  { name: 'timestamp', id: DIF_VAR_TIMESTAMP, type: 'uint64_t' },
  { name: 'vtimestamp', id: DIF_VAR_VTIMESTAMP, type: 'uint64_t' },
  { name: 'ipl', id: DIF_VAR_IPL },
  { name: 'epid', id: DIF_VAR_EPID, type: 'uint_t' },
  { name: 'id', id: DIF_VAR_ID, type: 'uint_t' },
  { name: 'arg0', id: DIF_VAR_ARG0, type: 'int64_t' },
  { name: 'arg1', id: DIF_VAR_ARG1, type: 'int64_t' },
  { name: 'arg2', id: DIF_VAR_ARG2, type: 'int64_t' },
  { name: 'arg3', id: DIF_VAR_ARG3, type: 'int64_t' },
  { name: 'arg4', id: DIF_VAR_ARG4, type: 'int64_t' },
  { name: 'arg5', id: DIF_VAR_ARG5, type: 'int64_t' },
  { name: 'arg6', id: DIF_VAR_ARG6, type: 'int64_t' },
  { name: 'arg7', id: DIF_VAR_ARG7, type: 'int64_t' },
  { name: 'arg8', id: DIF_VAR_ARG8, type: 'int64_t' },
  { name: 'arg9', id: DIF_VAR_ARG9, type: 'int64_t' },
  { name: 'stackdepth', id: DIF_VAR_STACKDEPTH, type: 'uint32_t' },
  { name: 'caller', id: DIF_VAR_CALLER, type: 'uintptr_t' },
  { name: 'probeprov', id: DIF_VAR_PROBEPROV, type: 'string' },
  { name: 'probemod', id: DIF_VAR_PROBEMOD, type: 'string' },
  { name: 'probefunc', id: DIF_VAR_PROBEFUNC, type: 'string' },
  { name: 'probename', id: DIF_VAR_PROBENAME, type: 'string' },
  { name: 'pid', id: DIF_VAR_PID, type: 'pid_t' },
  { name: 'tid', id: DIF_VAR_TID, type: 'id_t' },
  { name: 'execname', id: DIF_VAR_EXECNAME, type: 'string' },
  { name: 'zonename', id: DIF_VAR_ZONENAME, type: 'string' },
  { name: 'walltimestamp', id: DIF_VAR_WALLTIMESTAMP, type: 'int64_t' },
  { name: 'ustackdepth', id: DIF_VAR_USTACKDEPTH, type: 'uint32_t' },
  { name: 'ucaller', id: DIF_VAR_UCALLER, type: 'uint64_t' },
  { name: 'ppid', id: DIF_VAR_PPID, type: 'pid_t' },
  { name: 'uid', id: DIF_VAR_UID, type: 'uid_t' },
  { name: 'gid', id: DIF_VAR_GID, type: 'gid_t' },
  { name: 'errno', id: DIF_VAR_ERRNO, type: 'int' },
  { name: 'curcpu', id: DIF_VAR_CURCPU, type: 'cpuinfo_t *' },
  { name: 'probeinstance', id: DIF_VAR_PROBEINSTANCE, type: 'string' },
];

/** Built-in variable names and ids. */
export const DIF_VAR_BY_NAME: ReadonlyMap<string, number> = new Map(BUILTIN_VARIABLES.map((v) => [v.name, v.id]));

/** Built-in variable name for an id, or undefined for user variables and unknown ids. */
export const DIF_VAR_NAME_BY_ID: ReadonlyMap<number, string> = new Map(
  [...DIF_VAR_BY_NAME].map(([name, id]) => [id, name] as [number, string]),
);

// ---------------------------------------------------------------------------------------------
// Subroutines

export const DIF_SUBR_RAND = 0;
export const DIF_SUBR_MUTEX_OWNED = 1;
export const DIF_SUBR_MUTEX_OWNER = 2;
export const DIF_SUBR_MUTEX_TYPE_ADAPTIVE = 3;
export const DIF_SUBR_MUTEX_TYPE_SPIN = 4;
export const DIF_SUBR_RW_READ_HELD = 5;
export const DIF_SUBR_RW_WRITE_HELD = 6;
export const DIF_SUBR_RW_ISWRITER = 7;
export const DIF_SUBR_COPYIN = 8;
export const DIF_SUBR_COPYINSTR = 9;
export const DIF_SUBR_SPECULATION = 10;
export const DIF_SUBR_PROGENYOF = 11;
export const DIF_SUBR_STRLEN = 12;
export const DIF_SUBR_COPYOUT = 13;
export const DIF_SUBR_COPYOUTSTR = 14;
export const DIF_SUBR_ALLOCA = 15;
export const DIF_SUBR_BCOPY = 16;
export const DIF_SUBR_COPYINTO = 17;
export const DIF_SUBR_MSGDSIZE = 18;
export const DIF_SUBR_MSGSIZE = 19;
export const DIF_SUBR_GETMAJOR = 20;
export const DIF_SUBR_GETMINOR = 21;
export const DIF_SUBR_DDI_PATHNAME = 22;
export const DIF_SUBR_STRJOIN = 23;
export const DIF_SUBR_LLTOSTR = 24;
export const DIF_SUBR_BASENAME = 25;
export const DIF_SUBR_DIRNAME = 26;
export const DIF_SUBR_CLEANPATH = 27;
export const DIF_SUBR_STRCHR = 28;
export const DIF_SUBR_STRRCHR = 29;
export const DIF_SUBR_STRSTR = 30;
export const DIF_SUBR_STRTOK = 31;
export const DIF_SUBR_SUBSTR = 32;
export const DIF_SUBR_INDEX = 33;
export const DIF_SUBR_RINDEX = 34;
export const DIF_SUBR_HTONS = 35;
export const DIF_SUBR_HTONL = 36;
export const DIF_SUBR_HTONLL = 37;
export const DIF_SUBR_NTOHS = 38;
export const DIF_SUBR_NTOHL = 39;
export const DIF_SUBR_NTOHLL = 40;
export const DIF_SUBR_INET_NTOP = 41;
export const DIF_SUBR_INET_NTOA = 42;
export const DIF_SUBR_INET_NTOA6 = 43;
export const DIF_SUBR_TOUPPER = 44; // FreeBSD agrees; DTrace for Linux uses 44 for d_path
export const DIF_SUBR_TOLOWER = 45; // FreeBSD agrees; DTrace for Linux uses 45 for link_ntop
export const DIF_SUBR_GETF = 46; // FreeBSD: 51
export const DIF_SUBR_JSON = 47; // FreeBSD: 52
export const DIF_SUBR_STRTOLL = 48; // FreeBSD: 53
// Subroutines that illumos lacks. They take the numbers after illumos' last one so that no number
// means two things; the numbers their own headers give are noted.
export const DIF_SUBR_D_PATH = 49; // DTrace for Linux: 44
export const DIF_SUBR_LINK_NTOP = 50; // DTrace for Linux: 45
export const DIF_SUBR_MEMREF = 51; // FreeBSD: 46
export const DIF_SUBR_MEMSTR = 52; // FreeBSD: 50
export const DIF_SUBR_SX_SHARED_HELD = 53; // FreeBSD: 47
export const DIF_SUBR_SX_EXCLUSIVE_HELD = 54; // FreeBSD: 48
export const DIF_SUBR_SX_ISEXCLUSIVE = 55; // FreeBSD: 49
// The compiler's own check of a declared array's index (no D name): DTrace for Linux faults
// with DTRACEFLT_BADINDEX there, where illumos reads past the array.
export const DIF_SUBR_ARRAY_BOUND = 56;
export const DIF_SUBR_MAX = 56;
// Their names, prototypes and availability: src/dif/subroutines.ts.

// ---------------------------------------------------------------------------------------------
// Types and variable table entries

export const DIF_TYPE_CTF = 0;
export const DIF_TYPE_STRING = 1;
export const DIF_TF_BYREF = 0x1;
export const DIF_TF_BYUREF = 0x2; // illumos/FreeBSD: user-space type passed by reference
// This project's: an integer (or pointer) of an unsigned type. dtrace(1) prints a trace() record
// or an aggregation key by its type's signedness, as DTrace for Linux does (trace((uint8_t)-1) is
// 255, trace((int8_t)-1) is -1); DOF's type has no other place for it.
export const DIF_TF_UNSIGNED = 0x4;

export const DIFV_KIND_ARRAY = 0;
export const DIFV_KIND_SCALAR = 1;
export const DIFV_KIND_AGGREGATE = 2; // DTrace for Linux only

export const DIFV_SCOPE_GLOBAL = 0;
export const DIFV_SCOPE_THREAD = 1;
export const DIFV_SCOPE_LOCAL = 2;

export const DIFV_F_REF = 0x1;
export const DIFV_F_MOD = 0x2;

/** CTF type kinds, as found in dtrace_diftype_t.dtdt_ckind. */
export const CTF_K_UNKNOWN = 0;
export const CTF_K_INTEGER = 1;
export const CTF_K_FLOAT = 2;
export const CTF_K_POINTER = 3;
export const CTF_K_ARRAY = 4;
export const CTF_K_FUNCTION = 5;
export const CTF_K_STRUCT = 6;
export const CTF_K_UNION = 7;
export const CTF_K_ENUM = 8;
export const CTF_K_FORWARD = 9;
export const CTF_K_TYPEDEF = 10;
export const CTF_K_VOLATILE = 11;
export const CTF_K_CONST = 12;
export const CTF_K_RESTRICT = 13;

export const CTF_KIND_NAMES: readonly string[] = [
  'unknown', 'integer', 'float', 'pointer', 'array', 'function', 'struct', 'union', 'enum',
  'forward', 'typedef', 'volatile', 'const', 'restrict',
];

// ---------------------------------------------------------------------------------------------
// Actions (dtrace_actkind_t). The upper byte is the class, the lower byte the action in it.

export const DTRACEACT_NONE = 0;
export const DTRACEACT_DIFEXPR = 1; // trace()
export const DTRACEACT_EXIT = 2;
export const DTRACEACT_PRINTF = 3;
export const DTRACEACT_PRINTA = 4;
export const DTRACEACT_LIBACT = 5; // library-controlled (the arg says which)
export const DTRACEACT_TRACEMEM = 6;
export const DTRACEACT_TRACEMEM_DYNSIZE = 7; // DTrace for Linux uses 7 for pcap()

export const DTRACEACT_PROC = 0x0100;
export const DTRACEACT_USTACK = DTRACEACT_PROC + 1;
export const DTRACEACT_JSTACK = DTRACEACT_PROC + 2;
export const DTRACEACT_USYM = DTRACEACT_PROC + 3;
export const DTRACEACT_UMOD = DTRACEACT_PROC + 4;
export const DTRACEACT_UADDR = DTRACEACT_PROC + 5;

export const DTRACEACT_PROC_DESTRUCTIVE = 0x0200;
export const DTRACEACT_STOP = DTRACEACT_PROC_DESTRUCTIVE + 1;
export const DTRACEACT_RAISE = DTRACEACT_PROC_DESTRUCTIVE + 2;
export const DTRACEACT_SYSTEM = DTRACEACT_PROC_DESTRUCTIVE + 3;
export const DTRACEACT_FREOPEN = DTRACEACT_PROC_DESTRUCTIVE + 4;

export const DTRACEACT_PROC_CONTROL = 0x0300;

export const DTRACEACT_KERNEL = 0x0400;
export const DTRACEACT_STACK = DTRACEACT_KERNEL + 1;
export const DTRACEACT_SYM = DTRACEACT_KERNEL + 2;
export const DTRACEACT_MOD = DTRACEACT_KERNEL + 3;

export const DTRACEACT_KERNEL_DESTRUCTIVE = 0x0500;
export const DTRACEACT_BREAKPOINT = DTRACEACT_KERNEL_DESTRUCTIVE + 1;
export const DTRACEACT_PANIC = DTRACEACT_KERNEL_DESTRUCTIVE + 2;
export const DTRACEACT_CHILL = DTRACEACT_KERNEL_DESTRUCTIVE + 3;

export const DTRACEACT_SPECULATIVE = 0x0600;
export const DTRACEACT_SPECULATE = DTRACEACT_SPECULATIVE + 1;
export const DTRACEACT_COMMIT = DTRACEACT_SPECULATIVE + 2;
export const DTRACEACT_DISCARD = DTRACEACT_SPECULATIVE + 3;

export const DTRACEACT_AGGREGATION = 0x0700;
export const DTRACEAGG_COUNT = DTRACEACT_AGGREGATION + 1;
export const DTRACEAGG_MIN = DTRACEACT_AGGREGATION + 2;
export const DTRACEAGG_MAX = DTRACEACT_AGGREGATION + 3;
export const DTRACEAGG_AVG = DTRACEACT_AGGREGATION + 4;
export const DTRACEAGG_SUM = DTRACEACT_AGGREGATION + 5;
export const DTRACEAGG_STDDEV = DTRACEACT_AGGREGATION + 6;
export const DTRACEAGG_QUANTIZE = DTRACEACT_AGGREGATION + 7;
export const DTRACEAGG_LQUANTIZE = DTRACEACT_AGGREGATION + 8;
export const DTRACEAGG_LLQUANTIZE = DTRACEACT_AGGREGATION + 9;

export function actionClass(kind: number): number {
  return kind & 0xff00;
}
export function isAggregatingAction(kind: number): boolean {
  return actionClass(kind) === DTRACEACT_AGGREGATION;
}
export function isDestructiveAction(kind: number): boolean {
  const c = actionClass(kind);
  return c === DTRACEACT_PROC_DESTRUCTIVE || c === DTRACEACT_KERNEL_DESTRUCTIVE;
}
export function isSpeculativeAction(kind: number): boolean {
  return actionClass(kind) === DTRACEACT_SPECULATIVE;
}
/** Actions whose argument is a format string (DTRACEACT_ISPRINTFLIKE). */
export function isPrintfLikeAction(kind: number): boolean {
  return (
    kind === DTRACEACT_PRINTF ||
    kind === DTRACEACT_PRINTA ||
    kind === DTRACEACT_SYSTEM ||
    kind === DTRACEACT_FREOPEN
  );
}

/** Action kinds and the names D uses for them (aggregating functions without the '@'). */
export const DTRACEACT_NAMES: ReadonlyMap<number, string> = new Map<number, string>([
  [DTRACEACT_NONE, 'none'],
  [DTRACEACT_DIFEXPR, 'trace'],
  [DTRACEACT_EXIT, 'exit'],
  [DTRACEACT_PRINTF, 'printf'],
  [DTRACEACT_PRINTA, 'printa'],
  [DTRACEACT_LIBACT, 'libact'],
  [DTRACEACT_TRACEMEM, 'tracemem'],
  [DTRACEACT_TRACEMEM_DYNSIZE, 'tracemem_dynsize'],
  [DTRACEACT_USTACK, 'ustack'],
  [DTRACEACT_JSTACK, 'jstack'],
  [DTRACEACT_USYM, 'usym'],
  [DTRACEACT_UMOD, 'umod'],
  [DTRACEACT_UADDR, 'uaddr'],
  [DTRACEACT_STOP, 'stop'],
  [DTRACEACT_RAISE, 'raise'],
  [DTRACEACT_SYSTEM, 'system'],
  [DTRACEACT_FREOPEN, 'freopen'],
  [DTRACEACT_STACK, 'stack'],
  [DTRACEACT_SYM, 'sym'],
  [DTRACEACT_MOD, 'mod'],
  [DTRACEACT_BREAKPOINT, 'breakpoint'],
  [DTRACEACT_PANIC, 'panic'],
  [DTRACEACT_CHILL, 'chill'],
  [DTRACEACT_SPECULATE, 'speculate'],
  [DTRACEACT_COMMIT, 'commit'],
  [DTRACEACT_DISCARD, 'discard'],
  [DTRACEAGG_COUNT, 'count'],
  [DTRACEAGG_MIN, 'min'],
  [DTRACEAGG_MAX, 'max'],
  [DTRACEAGG_AVG, 'avg'],
  [DTRACEAGG_SUM, 'sum'],
  [DTRACEAGG_STDDEV, 'stddev'],
  [DTRACEAGG_QUANTIZE, 'quantize'],
  [DTRACEAGG_LQUANTIZE, 'lquantize'],
  [DTRACEAGG_LLQUANTIZE, 'llquantize'],
]);

// ---------------------------------------------------------------------------------------------
// quantize(), lquantize(), llquantize() and ustack() arguments

export const DTRACE_LQUANTIZE_STEPSHIFT = 48;
export const DTRACE_LQUANTIZE_LEVELSHIFT = 32;
export const DTRACE_LQUANTIZE_BASESHIFT = 0;

export interface LquantizeArg {
  base: number; // int32
  step: number; // uint16
  levels: number; // uint16
}

/** Pack lquantize(value, base, limit, step) parameters as the action's arg. */
export function packLquantizeArg({ base, step, levels }: LquantizeArg): bigint {
  checkInt('lquantize base', base, -0x80000000, 0x7fffffff);
  checkInt('lquantize step', step, 0, 0xffff);
  checkInt('lquantize levels', levels, 0, 0xffff);
  return (
    (BigInt(step) << 48n) |
    (BigInt(levels) << 32n) |
    BigInt.asUintN(32, BigInt(base))
  );
}

export function unpackLquantizeArg(arg: bigint): LquantizeArg {
  const a = BigInt.asUintN(64, arg);
  return {
    step: Number((a >> 48n) & 0xffffn),
    levels: Number((a >> 32n) & 0xffffn),
    base: Number(BigInt.asIntN(32, a & 0xffffffffn)),
  };
}

// illumos layout. DTrace for Linux packs llquantize differently (steps<<48 | hmag<<32 | lmag<<16 |
// factor); this project follows illumos.
export const DTRACE_LLQUANTIZE_FACTORSHIFT = 48;
export const DTRACE_LLQUANTIZE_LOWSHIFT = 32;
export const DTRACE_LLQUANTIZE_HIGHSHIFT = 16;
export const DTRACE_LLQUANTIZE_NSTEPSHIFT = 0;

export interface LlquantizeArg {
  factor: number; // uint16
  low: number; // uint16, low magnitude
  high: number; // uint16, high magnitude
  nsteps: number; // uint16
}

export function packLlquantizeArg({ factor, low, high, nsteps }: LlquantizeArg): bigint {
  checkInt('llquantize factor', factor, 0, 0xffff);
  checkInt('llquantize low', low, 0, 0xffff);
  checkInt('llquantize high', high, 0, 0xffff);
  checkInt('llquantize nsteps', nsteps, 0, 0xffff);
  return (BigInt(factor) << 48n) | (BigInt(low) << 32n) | (BigInt(high) << 16n) | BigInt(nsteps);
}

export function unpackLlquantizeArg(arg: bigint): LlquantizeArg {
  const a = BigInt.asUintN(64, arg);
  return {
    factor: Number((a >> 48n) & 0xffffn),
    low: Number((a >> 32n) & 0xffffn),
    high: Number((a >> 16n) & 0xffffn),
    nsteps: Number(a & 0xffffn),
  };
}

/** ustack(nframes, strsize) argument (DTRACE_USTACK_ARG). */
export function packUstackArg(nframes: number, strsize: number): bigint {
  checkInt('ustack frames', nframes, 0, 0xffffffff);
  checkInt('ustack string size', strsize, 0, 0xffffffff);
  return (BigInt(strsize) << 32n) | BigInt(nframes);
}

export function unpackUstackArg(arg: bigint): { nframes: number; strsize: number } {
  const a = BigInt.asUintN(64, arg);
  return { nframes: Number(a & 0xffffffffn), strsize: Number(a >> 32n) };
}

// ---------------------------------------------------------------------------------------------
// Faults (the arg of the ERROR probe's fault code)

export const DTRACEFLT_UNKNOWN = 0;
export const DTRACEFLT_BADADDR = 1;
export const DTRACEFLT_BADALIGN = 2;
export const DTRACEFLT_ILLOP = 3;
export const DTRACEFLT_DIVZERO = 4;
export const DTRACEFLT_NOSCRATCH = 5;
export const DTRACEFLT_KPRIV = 6;
export const DTRACEFLT_UPRIV = 7;
export const DTRACEFLT_TUPOFLOW = 8;
export const DTRACEFLT_BADSTACK = 9;
export const DTRACEFLT_BADSIZE = 10; // DTrace for Linux
export const DTRACEFLT_BADINDEX = 11; // DTrace for Linux
export const DTRACEFLT_LIBRARY = 1000;

const FAULT_MESSAGES: ReadonlyMap<number, string> = new Map<number, string>([
  [DTRACEFLT_BADADDR, 'invalid address'],
  [DTRACEFLT_BADALIGN, 'invalid alignment'],
  [DTRACEFLT_ILLOP, 'illegal operation'],
  [DTRACEFLT_DIVZERO, 'divide-by-zero'],
  [DTRACEFLT_NOSCRATCH, 'out of scratch space'],
  [DTRACEFLT_KPRIV, 'invalid kernel access'],
  [DTRACEFLT_UPRIV, 'invalid user access'],
  [DTRACEFLT_TUPOFLOW, 'tuple stack overflow'],
  [DTRACEFLT_BADSTACK, 'bad stack'],
  [DTRACEFLT_BADSIZE, 'invalid size'],
  [DTRACEFLT_BADINDEX, 'index out of bounds'],
  [DTRACEFLT_LIBRARY, 'library-level fault'],
]);

/** The text DTrace prints for a fault code (dtrace_faultstr). */
export function faultMessage(fault: number): string {
  return FAULT_MESSAGES.get(fault) ?? 'unknown fault';
}

function checkInt(what: string, v: number, min: number, max: number): void {
  if (!Number.isInteger(v) || v < min || v > max) {
    throw new RangeError(`${what} ${v} is outside ${min}..${max}`);
  }
}

// ---------------------------------------------------------------------------------------------
// Library actions (DTRACEACT_LIBACT): the action's arg says which; the consumer carries them out.
// libdtrace numbers them from DIF_SUBR_MAX + 1 so they never collide with subroutines (DT_ACT).

export const DT_ACT_BASE = DIF_SUBR_MAX + 1;
export const DT_ACT_CLEAR = DT_ACT_BASE + 15;
export const DT_ACT_NORMALIZE = DT_ACT_BASE + 16;
export const DT_ACT_DENORMALIZE = DT_ACT_BASE + 17;
export const DT_ACT_TRUNC = DT_ACT_BASE + 18;
export const DT_ACT_FTRUNCATE = DT_ACT_BASE + 21;
export const DT_ACT_SETOPT = DT_ACT_BASE + 28;
