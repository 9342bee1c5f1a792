// clear() and trunc() without losing what the kernel adds while the consumer works.
//
// DTrace switches aggregation buffers: the consumer clears what it snapshotted, and whatever
// probes add meanwhile lands in the other buffer. A BPF map cannot be switched from user space,
// so the device does the equivalent by arithmetic: clear() leaves the kernel's values alone and
// remembers, per entry and CPU, what the consumer read (an offset subtracted from every later
// read). trunc() does the same and hides the entry while it reads zero; deleting it at once
// would lose increments, as a probe that looked the entry up before the delete adds to it after
// the delete copied it out. A hidden entry is deleted only once it has stayed at zero for
// HIDDEN_IDLE_MS (the map must not fill with truncated keys), with an atomic lookup-and-delete
// whose value, if a probe raced it, is kept as a carry and shown. Counts stay exact however late
// the clear comes.
//
// Only aggregations whose data add up word by word (count, sum, avg, stddev, the quantizes) can
// be offset; min() and max() are reset as before.

import * as D from '../../dif/constants.js';

/** How long a truncated entry stays in the kernel at zero before it is deleted. */
export const HIDDEN_IDLE_MS = 50;

/** Can an aggregation of this kind be cleared by offset? */
export function offsettable(action: number): boolean {
  return action !== D.DTRACEAGG_MIN && action !== D.DTRACEAGG_MAX;
}

/**
 * The offsets of one device's aggregations: for each map entry (by fd and full key), a value
 * the size of the kernel's per-CPU value, subtracted from what the kernel holds.
 */
export class AggOffsets {
  private offsets = new Map<string, Buffer>();
  /** Truncated entries still in the kernel, hidden while they read zero: when each was hidden. */
  private hidden = new Map<string, number>();

  constructor(private ncpu: number) {}

  private static id(fd: number, key: Buffer): string {
    return `${fd}:${key.toString('hex')}`;
  }

  /** The entries of map fd that have an offset but no kernel entry (trunc carried them over). */
  carriedOnly(fd: number, present: Set<string>, action: number): { key: Buffer; value: Buffer }[] {
    const out: { key: Buffer; value: Buffer }[] = [];
    const prefix = `${fd}:`;
    for (const [id, value] of this.offsets) {
      if (!id.startsWith(prefix) || present.has(id)) continue;
      const shown = Buffer.alloc(value.length);
      combine(shown, shown, value, -1, action, this.ncpu);
      out.push({ key: Buffer.from(id.slice(prefix.length), 'hex'), value: shown });
    }
    return out;
  }

  /** What the consumer sees of a kernel value (all CPUs, stride apart): the value less its offset. */
  apply(fd: number, key: Buffer, value: Buffer, action: number): void {
    const off = this.offsets.get(AggOffsets.id(fd, key));
    if (off) combine(value, value, off, -1, action, this.ncpu);
  }

  /** clear(): the entry reads zero from what the consumer saw (read, per CPU, stride apart). */
  clear(fd: number, key: Buffer, read: Buffer, action: number): void {
    const id = AggOffsets.id(fd, key);
    const off = this.offsets.get(id) ?? Buffer.alloc(read.length);
    combine(off, off, read, 1, action, this.ncpu);
    this.set(id, off);
  }

  /**
   * trunc(): the kernel entry was deleted holding `removed`; what was added after the consumer's
   * read (removed less what the consumer saw, less the offset) stays as a carry.
   */
  truncate(fd: number, key: Buffer, read: Buffer, removed: Buffer | null, action: number): void {
    const id = AggOffsets.id(fd, key);
    // The new offset, against a kernel entry that is now empty: offset + read - removed.
    const off = this.offsets.get(id) ?? Buffer.alloc(read.length);
    combine(off, off, read, 1, action, this.ncpu);
    if (removed) combine(off, off, removed, -1, action, this.ncpu);
    this.set(id, off);
  }

  /** trunc() of an entry the kernel keeps: it reads zero from what the consumer saw, and is hidden. */
  hide(fd: number, key: Buffer, read: Buffer, action: number, now = Date.now()): void {
    this.clear(fd, key, read, action);
    this.hidden.set(AggOffsets.id(fd, key), now);
  }

  /**
   * A kernel entry as read (offset applied): 'show' it, 'hide' it (truncated, still zero), or
   * 'delete' it (truncated and idle long enough: the caller deletes it and calls truncate()).
   */
  visibility(fd: number, key: Buffer, shown: Buffer, now = Date.now()): 'show' | 'hide' | 'delete' {
    const id = AggOffsets.id(fd, key);
    const since = this.hidden.get(id);
    if (since === undefined) return 'show';
    if (shown.some((b) => b !== 0)) {
      this.hidden.delete(id);
      return 'show';
    }
    if (now - since < HIDDEN_IDLE_MS) return 'hide';
    this.hidden.delete(id);
    return 'delete';
  }

  /** Forget the offset of an entry (min/max reset, or the whole aggregation reset). */
  forget(fd: number, key: Buffer): void {
    this.offsets.delete(AggOffsets.id(fd, key));
  }

  private set(id: string, off: Buffer): void {
    if (off.every((b) => b === 0)) this.offsets.delete(id);
    else this.offsets.set(id, off);
  }

  static present(fd: number, key: Buffer): string {
    return AggOffsets.id(fd, key);
  }
}

/** out = a + sign*b per CPU, in u64 words that wrap; stddev's sum of squares is one 128-bit word. */
function combine(out: Buffer, a: Buffer, b: Buffer, sign: 1 | -1, action: number, ncpu: number): void {
  const stride = a.length / ncpu;
  for (let c = 0; c < ncpu; c++) {
    const base = c * stride;
    for (let w = 0; w + 8 <= stride; w += 8) {
      if (action === D.DTRACEAGG_STDDEV && w === 16) {
        const lo = (i: Buffer) => i.readBigUInt64LE(base + 16), hi = (i: Buffer) => i.readBigUInt64LE(base + 24);
        const x = (hi(a) << 64n) | lo(a), y = (hi(b) << 64n) | lo(b);
        const r = BigInt.asUintN(128, sign > 0 ? x + y : x - y);
        out.writeBigUInt64LE(BigInt.asUintN(64, r), base + 16);
        out.writeBigUInt64LE(r >> 64n, base + 24);
        w += 8;
        continue;
      }
      const x = a.readBigUInt64LE(base + w), y = b.readBigUInt64LE(base + w);
      out.writeBigUInt64LE(BigInt.asUintN(64, sign > 0 ? x + y : x - y), base + w);
    }
  }
}
