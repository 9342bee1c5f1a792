// One program for many uprobes: where the kernel has uprobe-multi links (BPF_TRACE_UPROBE_MULTI,
// Linux 6.6+), the uprobe probes that the same clauses enable and whose arguments are read the
// same way (every entry probe of a library, every return probe) share one program. Each site is
// attached with a cookie, its index in a per-group value map; the program's prologue reads the
// cookie (bpf_get_attach_cookie) and copies the firing probe's id, name strings and EPIDs into
// scratch memory, as a dispatched program does (dispatch.ts). So `pid$target:libc.so.6::entry`
// verifies one program and makes one link per file instead of 2,000 programs and perf events.

import type { Probe, ProbeArg } from '../../providers/provider.js';
import { BpfAsm, BPF_MAP_TYPE, FP, HELPER, R0, R1, R9 } from './bpf-asm.js';
import { emitProbeInfoCopy, sharedInfoWords, type ProbeValues } from './dispatch.js';
import { PROBE_INFO_WORDS, type MemLayout, type TranslateEnv } from './translate.js';
import type { MultiSite } from './uprobe.js';

type MapCreate = (o: { type: number; keySize: number; valueSize: number; maxEntries: number; name: string }) => number;
type MapUpdate = (fd: number, key: Buffer, value: Buffer) => void;

/** A program shared by uprobe sites, and the sites (cookie = index in its value map). */
export interface UprobeGroup {
  key: string;
  /** The probe the program was translated for (errors name it). */
  probe: Probe;
  progFd: number;
  infoFd: number;
  sites: (MultiSite & { probe: Probe })[];
  capacity: number;
}

export class UprobeSharing {
  private groups = new Map<string, UprobeGroup>();
  /** Sites per group key, counted up front: the value map's size. */
  private counts = new Map<string, number>();
  private pending: { key: string; infoFd: number } | null = null;

  /** `sites`: every uprobe probe site to be shared, with its clauses. */
  constructor(sites: { probe: Probe; clauses: number[] }[], private createMap: MapCreate, private update: MapUpdate) {
    for (const s of sites) {
      const k = groupKey(s.probe, s.clauses);
      this.counts.set(k, (this.counts.get(k) ?? 0) + 1);
    }
  }

  /** Route a site to the program already built for its group; false for the group's first. */
  reuse(probe: Probe, clauses: number[], values: ProbeValues): boolean {
    const g = this.groups.get(groupKey(probe, clauses));
    if (!g) return false;
    this.route(g, probe, values);
    return true;
  }

  /** For a group's first site: the translator's shared settings and the prologue that fills them. */
  translatorFor(
    probe: Probe, clauses: number[], epids: number[], mem: MemLayout,
    loadArgs: (a: BpfAsm, mem: MemLayout) => void,
  ): { shared: NonNullable<TranslateEnv['shared']>; loadArgs: (a: BpfAsm, mem: MemLayout) => void } {
    if (mem.probeInfo === undefined) throw new Error('no scratch memory for shared probe values');
    const key = groupKey(probe, clauses);
    const words = sharedInfoWords(clauses.length);
    const capacity = this.counts.get(key) ?? 1;
    const infoFd = this.createMap({ type: BPF_MAP_TYPE.ARRAY, keySize: 4, valueSize: 4 * words, maxEntries: capacity, name: 'dt_uprobeinfo' });
    this.pending = { key, infoFd };
    const info = mem.probeInfo;
    return {
      shared: { info, epidWord: new Map(epids.map((e, i) => [e, PROBE_INFO_WORDS.epids + i])) },
      loadArgs: (a, m) => {
        // The firing site's values, by the link's cookie.
        a.mov(R1, R9);
        a.call(HELPER.get_attach_cookie);
        a.stx(4, FP, -8, R0);
        emitProbeInfoCopy(a, infoFd, words, info);
        loadArgs(a, m);
      },
    };
  }

  /** Register the program just loaded for a group's first site. */
  adopt(probe: Probe, clauses: number[], progFd: number, values: ProbeValues): void {
    const p = this.pending!;
    const g: UprobeGroup = { key: p.key, probe, progFd, infoFd: p.infoFd, sites: [], capacity: this.counts.get(p.key) ?? 1 };
    this.groups.set(p.key, g);
    this.pending = null;
    this.route(g, probe, values);
  }

  all(): UprobeGroup[] {
    return [...this.groups.values()];
  }

  private route(g: UprobeGroup, probe: Probe, values: ProbeValues): void {
    if (probe.attach.kind !== 'uprobe') throw new Error('not a uprobe probe');
    const cookie = g.sites.length;
    if (cookie >= g.capacity) throw new Error('more uprobe sites than counted');
    const words = [values.strings.prov, values.strings.mod, values.strings.func, values.strings.name, values.id, ...values.epids];
    const value = Buffer.alloc(4 * words.length);
    words.forEach((w, i) => value.writeUInt32LE(w >>> 0, 4 * i));
    const key = Buffer.alloc(4);
    key.writeUInt32LE(cookie);
    this.update(g.infoFd, key, value);
    g.sites.push({ at: probe.attach, cookie: BigInt(cookie), probe });
  }
}

/** Sites share a program when the same clauses are enabled and arguments are read alike. */
function groupKey(probe: Probe, clauses: number[]): string {
  const at = probe.attach.kind === 'uprobe' ? probe.attach : null;
  return `${clauses.join(',')}|${at?.pid ?? ''}|${probe.perProcess ? 'p' : ''}|${argsKey(probe.args)}`;
}

function argsKey(args: ProbeArg[]): string {
  return JSON.stringify(args.map((a) => [a.index, a.from]), (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
}
