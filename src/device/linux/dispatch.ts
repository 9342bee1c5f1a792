// One attachment and one program for many probes: when a program enables many probes that a
// provider can also reach through one shared raw tracepoint (every system call's entry through
// sys_enter), a small dispatcher attached to the shared tracepoint tail-calls, from a BPF program
// array indexed by a key of the firing (the system call number), the program for the
// probe that fired. Probes enabled by the same clauses share one program: its prologue looks the
// key up in a per-probe value map and copies the firing probe's id, name strings and EPIDs into
// scratch memory, where the translator reads them (TranslateEnv.shared). So `syscall:::entry`
// verifies one program and opens one perf event instead of ~370 of each, while probefunc, the
// probe id, the EPIDs and args[] are still those of the system call that was made.

import type { Dispatch, Probe, ProbeArg } from '../../providers/provider.js';
import { ALU, BpfAsm, BPF_MAP_TYPE, FP, HELPER, JMP, R0, R1, R2, R3, R6, R8, R9, u32 } from './bpf-asm.js';
import { loadCurrentTask, loadEntryRegister } from './tracepoint-args.js';
import { PROBE_INFO_WORDS, type MemLayout, type TranslateEnv } from './translate.js';

/**
 * Probes on one shared raw tracepoint share a dispatcher from this many on: a program attached
 * there runs at every firing (every system call), whatever its probe -- seven getppid-unrelated
 * programs on sys_enter cost every system call about 480 ns, one dispatcher a fraction of that. A
 * probe alone keeps its own program (with its check of the key), which can be chained.
 */
export const MIN_DISPATCHED = 2;

const BPF_MAP_TYPE_PROG_ARRAY = BPF_MAP_TYPE.PROG_ARRAY;
const HELPER_TAIL_CALL = HELPER.tail_call;

export interface DispatchGroup {
  event: string;
  keyFrom: Dispatch['keyFrom'];
  skipTask?: Dispatch['skipTask'];
  /** Where the shared context holds each argument (the same for every probe of the group). */
  args: ProbeArg[];
  /** probe id -> key */
  keys: Map<number, number>;
  /** The program array, once created. */
  progArrayFd: number;
}

/** What a shared program needs to know about the probe that fired. */
export interface ProbeValues {
  id: number;
  strings: { prov: number; mod: number; func: number; name: number }; // string table offsets
  epids: number[]; // one per clause enabled on the probe, in plan order
}

type MapCreate = (o: { type: number; keySize: number; valueSize: number; maxEntries: number; name: string }) => number;
type MapUpdate = (fd: number, key: Buffer, value: Buffer) => void;

/** u32 words of per-probe values a program with `clauses` clauses needs. */
export function sharedInfoWords(clauses: number): number {
  return PROBE_INFO_WORDS.epids + clauses;
}

/** The shared tracepoints worth dispatching from, with the probes routed through each. */
export function planDispatch(probes: Probe[]): DispatchGroup[] {
  const groups = new Map<string, { g: DispatchGroup; route: Dispatch }>();
  for (const probe of probes) {
    const route: Dispatch | null | undefined = probe.dispatch?.();
    if (!route) continue;
    const id = `${route.event}/${JSON.stringify(route.keyFrom)}`;
    let entry = groups.get(id);
    if (!entry) {
      const g: DispatchGroup = { event: route.event, keyFrom: route.keyFrom, args: route.args, keys: new Map(), progArrayFd: -1 };
      groups.set(id, (entry = { g, route }));
    }
    entry.g.keys.set(probe.id, route.key);
  }
  const out: DispatchGroup[] = [];
  for (const { g, route } of groups.values()) {
    if (g.keys.size < MIN_DISPATCHED) continue;
    const skip = route.skipTask; // may be computed on demand
    if (skip) g.skipTask = skip;
    out.push(g);
  }
  return out;
}

interface SharedProgram {
  infoFd: number;
  progFd: number;
}

/** The dispatched probes of one enabling, their shared programs and the dispatchers. */
export class DispatchPlan {
  readonly groups: DispatchGroup[];
  /** By group and the clauses enabled on the probe: the program those probes share. */
  private programs = new Map<string, SharedProgram>();
  private pendingInfoFd = -1;

  constructor(probes: Probe[], private createMap: MapCreate, private update: MapUpdate) {
    this.groups = planDispatch(probes);
    for (const g of this.groups) {
      g.progArrayFd = createMap({ type: BPF_MAP_TYPE_PROG_ARRAY, keySize: 4, valueSize: 4, maxEntries: maxKey(g) + 1, name: 'dt_dispatch' });
    }
  }

  groupOf(probe: Probe): DispatchGroup | undefined {
    return this.groups.find((g) => g.keys.has(probe.id));
  }

  /**
   * Route a dispatched probe to the program already built for its clauses. False when the probe
   * is not dispatched or is the first of its kind (translate it with translatorFor, then adopt).
   */
  reuse(probe: Probe, clauses: number[], values: ProbeValues): boolean {
    const g = this.groupOf(probe);
    const shared = g && this.programs.get(programKey(g, clauses));
    if (!g || !shared) return false;
    this.route(g, probe, shared, values);
    return true;
  }

  /**
   * For the first dispatched probe with these clauses: the translator's shared settings and the
   * prologue that fills them in, or null for a probe that is not dispatched. `loadArgs` loads the
   * group's arguments (give it the device's loader for a probe with `args`).
   */
  translatorFor(
    probe: Probe, clauses: number, epids: number[], mem: MemLayout,
    loadArgs: (args: ProbeArg[]) => (a: BpfAsm, mem: MemLayout) => void,
  ): { shared: NonNullable<TranslateEnv['shared']>; loadArgs: (a: BpfAsm, mem: MemLayout) => void } | null {
    const g = this.groupOf(probe);
    if (!g) return null;
    if (mem.probeInfo === undefined) throw new Error('no scratch memory for shared probe values');
    const words = sharedInfoWords(clauses);
    const infoFd = this.createMap({ type: BPF_MAP_TYPE.ARRAY, keySize: 4, valueSize: 4 * words, maxEntries: maxKey(g) + 1, name: 'dt_probeinfo' });
    this.pendingInfoFd = infoFd;
    const info = mem.probeInfo;
    const epidWord = new Map(epids.map((e, i) => [e, PROBE_INFO_WORDS.epids + i]));
    const args = loadArgs(g.args);
    return {
      shared: { info, epidWord },
      loadArgs: (a, m) => {
        // The firing probe's values, by its key.
        loadKey(a, g, R9);
        a.stx(4, FP, -8, R0);
        emitProbeInfoCopy(a, infoFd, words, info);
        args(a, m);
      },
    };
  }

  /** Register the program just loaded for the first probe with these clauses. */
  adopt(probe: Probe, clauses: number[], progFd: number, values: ProbeValues): void {
    const g = this.groupOf(probe)!;
    const shared = { infoFd: this.pendingInfoFd, progFd };
    this.programs.set(programKey(g, clauses), shared);
    this.route(g, probe, shared, values);
  }

  /** The dispatchers to load and attach, one per group. */
  dispatchers(): { probe: Probe; insns: Buffer }[] {
    return this.groups.map((g) => ({ probe: dispatcherProbe(g), insns: dispatcherProgram(g) }));
  }

  private route(g: DispatchGroup, probe: Probe, shared: SharedProgram, values: ProbeValues): void {
    const key = u32(g.keys.get(probe.id)!);
    const words = [values.strings.prov, values.strings.mod, values.strings.func, values.strings.name, values.id, ...values.epids];
    const value = Buffer.alloc(4 * words.length);
    words.forEach((w, i) => value.writeUInt32LE(w >>> 0, 4 * i));
    this.update(shared.infoFd, key, value);
    this.update(g.progArrayFd, key, u32(shared.progFd));
  }
}

function programKey(g: DispatchGroup, clauses: number[]): string {
  return `${g.event}/${JSON.stringify(g.keyFrom)}:${clauses.join(',')}`;
}

function maxKey(g: DispatchGroup): number {
  return Math.max(...g.keys.values());
}


/** r0 = the group's key of this firing; `ctx` holds the context. Clobbers r1-r5. */
function loadKey(a: BpfAsm, g: DispatchGroup, ctx: number): void {
  if (g.keyFrom.kind === 'raw') a.ldx(8, R0, ctx, 8 * g.keyFrom.index);
  else loadEntryRegister(a, g.keyFrom.offset);
}

/**
 * The dispatcher: tail-call progArray[key]; a key with no program, or a task the group skips,
 * returns.
 */
export function dispatcherProgram(g: DispatchGroup): Buffer {
  const a = new BpfAsm();
  const out = a.label('out');
  a.mov(R6, R1);
  if (g.skipTask) {
    loadCurrentTask(a, g.skipTask.offset, 4);
    a.jmpImm(JMP.JSET, R0, g.skipTask.mask, out);
  }
  loadKey(a, g, R6);
  a.mov(R3, R0);
  a.jmpImm(JMP.JSLT, R3, 0, out);
  a.mov(R1, R6);
  a.ldMap(R2, g.progArrayFd);
  a.call(HELPER_TAIL_CALL);
  a.place(out);
  a.movImm(R0, 0);
  a.exit();
  return a.finish();
}

/** A stand-in probe for attaching the dispatcher to the shared raw tracepoint. */
export function dispatcherProbe(g: DispatchGroup): Probe {
  return {
    id: 0, provider: 'dispatch', module: '', func: '', name: g.event,
    attach: { kind: 'rawTracepoint', event: g.event }, args: [],
  };
}

/**
 * Copy the firing probe's values (`words` of them) from the info map's element whose u32 key is
 * at FP-8 into mem at `info` (R8); a key of no enabled probe ends the program.
 */
export function emitProbeInfoCopy(a: BpfAsm, infoFd: number, words: number, info: number): void {
  const found = a.label('info.found');
  a.ldMap(R1, infoFd);
  a.mov(R2, FP), a.aluImm(ALU.ADD, R2, -8);
  a.call(HELPER.map_lookup_elem);
  a.jmpImm(JMP.JNE, R0, 0, found);
  a.movImm(R0, 0);
  a.exit();
  a.place(found);
  for (let w = 0; w < words; w++) a.ldx(4, R1, R0, 4 * w), a.stx(4, R8, info + 4 * w, R1);
}
