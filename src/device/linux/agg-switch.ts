// clear() and trunc() exact under load: aggregation buffers switched, as DTrace switches them.
//
// An aggregation that clear() or trunc() names keeps its data in one of two maps of its kind
// behind an outer BPF_MAP_TYPE_ARRAY_OF_MAPS of one slot; its probes update the map in the slot
// (aggregate.ts). At every snapshot the device puts the spare map into the slot. The kernel's
// update of a map of maps from bpf(2) returns only after an RCU grace period
// (maybe_wait_bpf_programs), and our programs run inside RCU read-side sections, so once it
// returns no probe writes the map switched out: it is read whole, added into the store here (the
// consumer's merge of CPUs, dif/aggdata.ts), emptied, and kept as the spare. clear() and trunc()
// change the store alone, so nothing a probe adds between a read and a reset is lost. The kernel
// maps are emptied at each switch; the store holds what clear() and trunc() leave.

import { type AggSum, addAggData, aggSum, aggSumBytes } from '../../dif/aggdata.js';
import * as D from '../../dif/constants.js';
import { native } from '../native.js';
import { u32 } from './bpf-asm.js';

export class SwitchedMaps {
  /** Each entry's data added up over CPUs and switches, by its full key in the maps (hex). */
  private store = new Map<string, AggSum>();
  /** Which of the two maps is in the slot. */
  private active = 0;

  constructor(
    private outerFd: number,
    private inner: [number, number],
    private shape: { keyed: boolean; keySize: number; valueSize: number; action: number; ncpu: number; perCpu: boolean },
    /** A keyless map's elements (one per aggregation sharing it): always present, from zero. */
    elements = 0,
  ) {
    for (let i = 0; i < elements; i++) this.store.set(u32(i).toString('hex'), aggSum(shape.valueSize));
  }

  /** Put the spare map into the slot, then move what the one switched out holds into the store. */
  switch(): void {
    const out = this.inner[this.active];
    native.mapUpdate(this.outerFd, u32(0), u32(this.inner[this.active ^ 1]), 0);
    this.active ^= 1;
    const { keyed, valueSize, action, ncpu, perCpu } = this.shape;
    const stride = Math.ceil(valueSize / 8) * 8;
    const value = Buffer.alloc(perCpu ? stride * ncpu : stride);
    const add = (key: Buffer) => {
      const id = key.toString('hex');
      const sum = this.store.get(id) ?? this.store.set(id, aggSum(valueSize)).get(id)!;
      for (let c = 0; c < (perCpu ? ncpu : 1); c++) addAggData(action, sum, value.subarray(c * stride, c * stride + valueSize));
    };
    if (keyed) {
      // Keys first: deleting the key a walk stands on would restart the walk at the first key.
      for (const key of mapKeys(out, this.shape.keySize)) {
        if (native.mapLookupAndDelete(out, key, value)) add(key);
      }
      return;
    }
    const zero = Buffer.alloc(value.length);
    for (const id of this.store.keys()) {
      const key = Buffer.from(id, 'hex');
      if (!native.mapLookup(out, key, value) || value.equals(zero)) continue;
      add(key);
      native.mapUpdate(out, key, zero, 0);
    }
  }

  /** A keyless aggregation's data (its element's key). */
  value(key: Buffer): Buffer {
    return aggSumBytes(this.shape.action, this.store.get(key.toString('hex')) ?? aggSum(this.shape.valueSize));
  }

  /** The store's entries: full key and data. */
  entries(): { key: Buffer; value: Buffer }[] {
    return [...this.store].map(([id, sum]) => ({ key: Buffer.from(id, 'hex'), value: aggSumBytes(this.shape.action, sum) }));
  }

  /** clear(): the entry reads zero from what the consumer read (its CPUs' data); its key stays. */
  clear(key: Buffer, read: Buffer[]): void {
    const have = this.store.get(key.toString('hex'));
    if (have) this.takeAway(have, read, () => have.fill(0n));
  }

  /** trunc(): the entry goes, as the consumer read it (a keyless one reads zero). */
  remove(key: Buffer, read: Buffer[]): void {
    const id = key.toString('hex');
    const have = this.store.get(id);
    if (have) this.takeAway(have, read, () => (this.shape.keyed ? this.store.delete(id) : have.fill(0n)));
  }

  /**
   * Take what the consumer read away from an entry. It is what the store holds unless a snapshot
   * came between the read and now (a fleet's agent): then what the later switch added stays --
   * all of it for the adding kinds, and a min or max that has changed since the read.
   */
  private takeAway(have: AggSum, read: Buffer[], gone: () => void): void {
    const { action, valueSize } = this.shape;
    const seen = aggSum(valueSize);
    for (const b of read) addAggData(action, seen, b);
    if (aggSumBytes(action, have).equals(aggSumBytes(action, seen))) return void gone();
    if (action !== D.DTRACEAGG_MIN && action !== D.DTRACEAGG_MAX) for (const b of read) addAggData(action, have, b, -1);
  }
}


/** Every key of a hash map. */
export function mapKeys(fd: number, keySize: number): Buffer[] {
  const keys: Buffer[] = [];
  let key: Buffer | null = null;
  const next = Buffer.alloc(keySize);
  while (native.mapNextKey(fd, key, next)) keys.push((key = Buffer.from(next)));
  return keys;
}
