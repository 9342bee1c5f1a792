// DOF (DTrace Object Format) constants and structure sizes, from the DTrace headers
// (illumos sys/dtrace.h, DTrace for Linux include/dtrace/dof_defines.h).
//
// Every DOF structure has fixed-size fields, so the layout is the same for 32- and 64-bit
// consumers. This project writes little-endian, LP64 DOF.

// dof_hdr_t.dofh_ident[]
export const DOF_ID_SIZE = 16;
export const DOF_ID_MAG0 = 0;
export const DOF_ID_MAG1 = 1;
export const DOF_ID_MAG2 = 2;
export const DOF_ID_MAG3 = 3;
export const DOF_ID_MODEL = 4;
export const DOF_ID_ENCODING = 5;
export const DOF_ID_VERSION = 6;
export const DOF_ID_DIFVERS = 7;
export const DOF_ID_DIFIREG = 8;
export const DOF_ID_DIFTREG = 9;
export const DOF_ID_PAD = 10; // bytes 10..15 are zero

export const DOF_MAG_MAG0 = 0x7f;
export const DOF_MAG_MAG1 = 0x44; // 'D'
export const DOF_MAG_MAG2 = 0x4f; // 'O'
export const DOF_MAG_MAG3 = 0x46; // 'F'
export const DOF_MAG_STRING = '\x7fDOF';

export const DOF_MODEL_NONE = 0;
export const DOF_MODEL_ILP32 = 1;
export const DOF_MODEL_LP64 = 2;

export const DOF_ENCODE_NONE = 0;
export const DOF_ENCODE_LSB = 1;
export const DOF_ENCODE_MSB = 2;

export const DOF_VERSION_1 = 1;
export const DOF_VERSION_2 = 2; // adds is-enabled probe offsets for USDT providers
export const DOF_VERSION = DOF_VERSION_2;

export const DOF_FL_VALID = 0; // no header flags are defined

export const DOF_SECIDX_NONE = 0xffffffff; // "no section" in a dof_secidx_t
export const DOF_STRIDX_NONE = 0xffffffff;

// Section types (dof_sec_t.dofs_type)
export const DOF_SECT_NONE = 0;
export const DOF_SECT_COMMENTS = 1;
export const DOF_SECT_SOURCE = 2;
export const DOF_SECT_ECBDESC = 3;
export const DOF_SECT_PROBEDESC = 4;
export const DOF_SECT_ACTDESC = 5;
export const DOF_SECT_DIFOHDR = 6;
export const DOF_SECT_DIF = 7;
export const DOF_SECT_STRTAB = 8;
export const DOF_SECT_VARTAB = 9;
export const DOF_SECT_RELTAB = 10;
export const DOF_SECT_TYPTAB = 11;
export const DOF_SECT_URELHDR = 12;
export const DOF_SECT_KRELHDR = 13;
export const DOF_SECT_OPTDESC = 14;
export const DOF_SECT_PROVIDER = 15;
export const DOF_SECT_PROBES = 16;
export const DOF_SECT_PRARGS = 17;
export const DOF_SECT_PROFFS = 18;
export const DOF_SECT_INTTAB = 19;
export const DOF_SECT_UTSNAME = 20;
export const DOF_SECT_XLTAB = 21;
export const DOF_SECT_XLMEMBERS = 22;
export const DOF_SECT_XLIMPORT = 23;
export const DOF_SECT_XLEXPORT = 24;
export const DOF_SECT_PREXPORT = 25;
export const DOF_SECT_PRENOFFS = 26;

export const DOF_SECT_NAMES: readonly string[] = [
  'NONE', 'COMMENTS', 'SOURCE', 'ECBDESC', 'PROBEDESC', 'ACTDESC', 'DIFOHDR', 'DIF', 'STRTAB',
  'VARTAB', 'RELTAB', 'TYPTAB', 'URELHDR', 'KRELHDR', 'OPTDESC', 'PROVIDER', 'PROBES', 'PRARGS',
  'PROFFS', 'INTTAB', 'UTSNAME', 'XLTAB', 'XLMEMBERS', 'XLIMPORT', 'XLEXPORT', 'PREXPORT',
  'PRENOFFS',
];

export function sectionTypeName(type: number): string {
  const n = DOF_SECT_NAMES[type];
  return n === undefined ? `type ${type}` : n;
}

export const DOF_SECF_LOAD = 1; // section is loaded into the kernel

/** The section types DTrace loads (DOF_SEC_ISLOADABLE). */
export function isLoadableSectionType(type: number): boolean {
  return (
    type !== DOF_SECT_NONE && type !== DOF_SECT_COMMENTS && type !== DOF_SECT_SOURCE &&
    type !== DOF_SECT_UTSNAME && type <= DOF_SECT_PRENOFFS
  );
}

export const DOF_RELO_NONE = 0;
export const DOF_RELO_SETX = 1;

// Structure sizes in bytes
export const DOF_HDR_SIZE = 64; // dof_hdr_t
export const DOF_SEC_SIZE = 32; // dof_sec_t
export const DOF_ECBDESC_SIZE = 24; // dof_ecbdesc_t
export const DOF_PROBEDESC_SIZE = 24; // dof_probedesc_t
export const DOF_ACTDESC_SIZE = 32; // dof_actdesc_t
export const DOF_DIFTYPE_SIZE = 8; // dtrace_diftype_t
export const DOF_DIFOHDR_SIZE = 12; // dof_difohdr_t: a type and at least one link
export const DOF_DIFV_SIZE = 20; // dtrace_difv_t
export const DOF_OPTDESC_SIZE = 16; // dof_optdesc_t
export const DIF_INSTR_SIZE = 4; // dif_instr_t
export const DOF_PROVIDER_SIZE = 44; // dof_provider_t, with dofpv_prenoffs
export const DOF_PROVIDER_V1_SIZE = 40; // dof_provider_t of DOF version 1 (no is-enabled offsets)
export const DOF_PROBE_SIZE = 48; // dof_probe_t

/** A stability attribute triple as DOF stores it (DOF_ATTR): name, data and class in a u32. */
export function dofAttr(name: number, data: number, cls: number): number {
  return ((name << 24) | (data << 16) | (cls << 8)) >>> 0;
}

/**
 * This project's extension of dof_probedesc_t: a dof_stridx_t after dofp_id naming the RFD 2
 * instance. Written only when the instance is not "host"; a kernel reads the first 24 bytes.
 */
export const DOF_PROBEDESC_INSTANCE_SIZE = 28;

/**
 * This project's extension of dof_optdesc_t: dofo_option, dofo_strtab, dofo_value (the value
 * string's offset), then a dof_stridx_t with the option name's offset and 4 bytes of padding.
 */
export const DOF_OPTDESC_NAMED_SIZE = 24;

// Option identifiers (dof_optdesc_t.dofo_option) known to the kernel.
export const DTRACEOPT_BUFSIZE = 0;
export const DTRACEOPT_BUFPOLICY = 1;
export const DTRACEOPT_DYNVARSIZE = 2;
export const DTRACEOPT_AGGSIZE = 3;
export const DTRACEOPT_SPECSIZE = 4;
export const DTRACEOPT_NSPEC = 5;
export const DTRACEOPT_STRSIZE = 6;
export const DTRACEOPT_CLEANRATE = 7;
export const DTRACEOPT_CPU = 8;
export const DTRACEOPT_BUFRESIZE = 9;
export const DTRACEOPT_GRABANON = 10;
export const DTRACEOPT_FLOWINDENT = 11;
export const DTRACEOPT_QUIET = 12;
export const DTRACEOPT_STACKFRAMES = 13;
export const DTRACEOPT_USTACKFRAMES = 14;
export const DTRACEOPT_AGGRATE = 15;
export const DTRACEOPT_SWITCHRATE = 16;
export const DTRACEOPT_STATUSRATE = 17;
export const DTRACEOPT_DESTRUCTIVE = 18;
export const DTRACEOPT_STACKINDENT = 19;
export const DTRACEOPT_RAWBYTES = 20;
export const DTRACEOPT_JSTACKFRAMES = 21;
export const DTRACEOPT_JSTACKSTRSIZE = 22;
export const DTRACEOPT_AGGSORTKEY = 23;
export const DTRACEOPT_AGGSORTREV = 24;
export const DTRACEOPT_AGGSORTPOS = 25;
export const DTRACEOPT_AGGSORTKEYPOS = 26;
export const DTRACEOPT_TEMPORAL = 27;
export const DTRACEOPT_AGGHIST = 28;
export const DTRACEOPT_AGGPACK = 29;
export const DTRACEOPT_AGGZOOM = 30;
export const DTRACEOPT_ZONE = 31;
export const DTRACEOPT_MAX = 32;

export const DTRACEOPT_UNSET = -2n; // as a dtrace_optval_t
export const DTRACEOPT_BUFPOLICY_RING = 0;
export const DTRACEOPT_BUFPOLICY_FILL = 1;
export const DTRACEOPT_BUFPOLICY_SWITCH = 2;
export const DTRACEOPT_BUFRESIZE_AUTO = 0;
export const DTRACEOPT_BUFRESIZE_MANUAL = 1;

/** Kernel option names, indexed by DTRACEOPT_* id. */
export const DTRACEOPT_NAMES: readonly string[] = [
  'bufsize', 'bufpolicy', 'dynvarsize', 'aggsize', 'specsize', 'nspec', 'strsize', 'cleanrate',
  'cpu', 'bufresize', 'grabanon', 'flowindent', 'quiet', 'stackframes', 'ustackframes', 'aggrate',
  'switchrate', 'statusrate', 'destructive', 'stackindent', 'rawbytes', 'jstackframes',
  'jstackstrsize', 'aggsortkey', 'aggsortrev', 'aggsortpos', 'aggsortkeypos', 'temporal',
  'agghist', 'aggpack', 'aggzoom', 'zone',
];

/** dofo_option of a named option the kernel does not know (library options such as "defaultargs"). */
export const DOF_OPTION_LIBRARY = 0xffffffff;

export function optionId(name: string): number {
  const i = DTRACEOPT_NAMES.indexOf(name);
  return i < 0 ? DOF_OPTION_LIBRARY : i;
}

/**
 * An aggregating action's dofa_uarg, as this project writes it: the aggregation's id in the high
 * 32 bits and the offset of its name in the action's string table (dofa_strtab) in the low 32.
 * A DTrace kernel treats dofa_uarg as opaque and ignores dofa_strtab for aggregating actions, and
 * hands the value back in the records' dtrd_uarg, so a consumer can recover both from it.
 */
export function packAggregationUarg(id: bigint, nameOffset: number): bigint {
  if (id < 0n || id > 0xffffffffn) {
    throw new RangeError(`aggregation id ${id} does not fit the 32 bits DOF keeps for it`);
  }
  return (id << 32n) | BigInt(nameOffset >>> 0);
}

export function unpackAggregationUarg(uarg: bigint): { id: bigint; nameOffset: number } {
  const u = BigInt.asUintN(64, uarg);
  return { id: u >> 32n, nameOffset: Number(u & 0xffffffffn) };
}
