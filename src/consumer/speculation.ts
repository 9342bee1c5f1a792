// Speculations in the consumer: records a speculative clause wrote are held by speculation until
// its commit() or discard() marker arrives (see src/device/linux/speculation.ts for the tags).
//
// commit() prints the held records at the marker's position, those recorded on the committing
// CPU first, each in the order it was recorded; records of a committed speculation that arrive
// after the marker (written on other CPUs) are printed where they arrive, as DTrace's cleaner
// commits other CPUs' buffers later. discard() forgets them, and any that arrive later.

import type { Device, InstanceDrops } from '../device/device.js';
import { dropInstance } from './records.js';
import { SPEC_TAG, parseSpecTag } from '../abi/records.js';

export interface HeldRecord {
  cpu: number;
  raw: Buffer;
}

interface Held {
  records: HeldRecord[];
  drops: number; // records that did not fit in specsize
}

/** Decisions remembered per speculation, for records that arrive after the marker. */
const DECISIONS_KEPT = 8;

export class Speculations {
  private held = new Map<number, Held>(); // by id and generation (key())
  private decided = new Map<number, Map<number, boolean>>(); // id -> generation -> committed
  private drops = 0;
  /** Committed or discarded speculations waiting for the cleaner, by id and generation. */
  private toClean: [number, number][] = [];

  constructor(private device: Device) {}

  /** DTrace's cleaner: speculations committed on several CPUs or discarded become free again. */
  clean(): void {
    for (const [id, gen] of this.toClean) this.device.cleanSpeculation?.(id, gen);
    this.toClean = [];
  }

  /** A tagged record: the records to print now, their tags cleared, in order. */
  take(cpu: number, raw: Buffer, tag: number): HeldRecord[] {
    const { kind, id, gen } = parseSpecTag(tag);
    if (kind === SPEC_TAG.DATA || kind === SPEC_TAG.DROP) {
      const committed = this.decided.get(id)?.get(gen);
      if (committed !== undefined) {
        if (!committed) return [];
        if (kind === SPEC_TAG.DROP) return this.drops++, [];
        return [{ cpu, raw: untagged(raw) }];
      }
      const k = key(id, gen);
      let h = this.held.get(k);
      if (!h) this.held.set(k, (h = { records: [], drops: 0 }));
      if (kind === SPEC_TAG.DROP) h.drops++;
      else h.records.push({ cpu, raw: untagged(raw) });
      return [];
    }
    const commit = kind === SPEC_TAG.COMMIT || kind === SPEC_TAG.COMMIT_CLEAN;
    if (!commit && kind !== SPEC_TAG.DISCARD && kind !== SPEC_TAG.DISCARD_CLEAN) return [];
    this.decide(id, gen, commit);
    // Returned to INACTIVE by the next clean() (the cleaner, at -x cleanrate), not at once.
    if (kind === SPEC_TAG.COMMIT_CLEAN || kind === SPEC_TAG.DISCARD_CLEAN) this.toClean.push([id, gen]);
    const h = this.held.get(key(id, gen));
    this.held.delete(key(id, gen));
    if (!h || !commit) return [];
    this.drops += h.drops;
    return [...h.records.filter((r) => r.cpu === cpu), ...h.records.filter((r) => r.cpu !== cpu)];
  }

  /**
   * The drop messages dtrace prints from its status: speculative drops, failed speculations (a
   * fleet's: each instance's, naming it).
   */
  report(err: (text: string) => void, fleet?: InstanceDrops[]): void {
    const plural = (n: number) => (n === 1 ? '' : 's');
    if (this.drops > 0) err(`dtrace: ${this.drops} speculative drop${plural(this.drops)}\n`);
    this.drops = 0;
    const failures: { instance?: string; busy: number; unavailable: number }[] =
      fleet ?? [this.device.speculationFailures?.() ?? { busy: 0, unavailable: 0 }];
    for (const f of failures) {
      const at = dropInstance(f.instance);
      if (f.busy > 0) err(`dtrace: ${at}${f.busy} failed speculation${plural(f.busy)} (available buffer(s) still busy)\n`);
      if (f.unavailable > 0)
        err(`dtrace: ${at}${f.unavailable} failed speculation${plural(f.unavailable)} (no speculative buffer available)\n`);
    }
  }

  private decide(id: number, gen: number, commit: boolean): void {
    let d = this.decided.get(id);
    if (!d) this.decided.set(id, (d = new Map()));
    d.delete(gen);
    d.set(gen, commit);
    if (d.size > DECISIONS_KEPT) d.delete(d.keys().next().value!);
  }
}

function key(id: number, gen: number): number {
  return id * 0x1000 + gen;
}

/** A copy of the record with the tag word cleared: an ordinary record of its enabled probe. */
function untagged(raw: Buffer): Buffer {
  const copy = Buffer.from(raw);
  copy.writeUInt32LE(0, 4);
  return copy;
}
