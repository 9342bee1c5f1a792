// The record header: what the device writes before every record's data and the consumer reads.
// u32 epid, u32 tag (0, or a speculation tag), u64 timestamp.

export const RECORD_HEADER_SIZE = 16; // u32 epid, u32 tag, u64 timestamp
/** The epid of fault records (DTRACE_EPIDNONE): data is u32 epid, u32 action, u32 DIF offset,
 * u32 fault code, u64 address -- the ERROR probe's arguments. */
export const FAULT_EPID = 0;
/** The tag word of a fault record for a fault inside an ERROR clause: DTrace's double error,
 * which the consumer counts ("N errors in ERROR probe enabling") instead of printing. */
export const DBLERROR_TAG = 1;
/** The epid of the device's own marker record, which never reaches the consumer (the Linux
 * device writes one to make the kernel tell a buffer's last lost records). */
export const FLUSH_EPID = 0xffffffff;

/**
 * The format of a freopen() record that sends output back to dtrace's own (what the compiler
 * makes of freopen(""), whose empty format would otherwise be refused): "." is never a file
 * freopen(3) could open for writing, so no program can mean anything else by it.
 */
export const FREOPEN_RESTORE = '.';

/** Kinds of tagged records (the kind of a speculation tag). */
export const SPEC_TAG = {
  DATA: 1, // a speculative clause's record
  DROP: 2, // a record that did not fit in specsize (header only)
  COMMIT: 3, // commit(): print the held records
  COMMIT_CLEAN: 4, // the same, and the consumer returns the speculation to INACTIVE
  DISCARD: 5, // discard(): forget the held records
  DISCARD_CLEAN: 6,
  SUPPRESSED: 15, // never emitted: the clause's record is not written
} as const;

/**
 * A speculative record's tag word: the kind in the top 4 bits, the speculation's generation in
 * the next 12, its id in the low 16.
 */
export function specTag(kind: number, id: number, gen: number): number {
  return ((kind << 28) | ((gen & 0xfff) << 16) | id) >>> 0;
}

export function parseSpecTag(tag: number): { kind: number; id: number; gen: number } {
  return { kind: tag >>> 28, id: tag & 0xffff, gen: (tag >>> 16) & 0xfff };
}
