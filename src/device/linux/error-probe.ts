// The ERROR probe, fired in probe context as DTrace's kernel fires it from dtrace_probe_error().
//
// Every program that can fault carries one error block (after its exit) holding the ERROR
// probe's clauses. A fault saves the ERROR arguments -- arg1 the faulting ECB's EPID, arg2 the
// action (0 the predicate), arg3 the DIF offset, arg4 the fault code (DTRACEFLT_*), arg5 the
// faulting address -- and which ECB to go on with, then jumps there. The block swaps the
// firing probe's args[] for those, runs the ERROR clauses as that probe's ECBs (their records
// carry their own EPIDs), puts args[] back, writes the fault record that dtrace(1) prints as
// "error on enabled probe ID ..." (libdtrace's own ERROR enabling, which comes after the user's
// in DTrace too), and jumps back to the ECB after the faulting one. A fault inside an ERROR
// clause abandons that clause without firing ERROR again, as DTrace does, and writes its fault
// record tagged DBLERROR_TAG for the consumer to count.

import { DBLERROR_TAG, RECORD_HEADER_SIZE } from '../../abi/records.js';
import { FP, JMP, type Label, R1, R8 } from './bpf-asm.js';
import type { EcbPlan, ProbeTranslator } from './translate.js';

/** What the device tells every translator about the ERROR probe's clauses. */
export interface ErrorProbeEnv {
  plans: EcbPlan[];
  probeId: number;
  strings: { prov: number; mod: number; func: number; name: number };
}

/** Bytes of per-CPU memory the error block needs (MemLayout.errorArea). */
export const ERROR_AREA_SIZE = 24 + 80;
const DATA = 0; // the fault record's 24 bytes of data
const SAVED_ARGS = 24; // u64[10]: the firing probe's args[]
/**
 * Stack slot of the continuation to take (below the translator's own slots, which the ERROR
 * clauses reuse): on the stack the verifier knows it is a constant, so it follows only the
 * jump back to the faulting ECB's successor, never a path that could loop.
 */
const RESUME_SLOT = -104;

interface BlockState {
  block: Label;
  resumes: Label[];
  active: boolean;
}

const states = new WeakMap<ProbeTranslator, BlockState>();

function errorEnv(t: ProbeTranslator): ErrorProbeEnv | undefined {
  const env = t.env;
  return env.errorProbe && env.errorProbe.plans.length > 0 && env.mem.errorArea !== undefined ? env.errorProbe : undefined;
}

/**
 * At a fault site, once the fault record's data is in mem.buf: go to the error block, to come
 * back at `next`. False when there are no ERROR clauses (the caller writes the record itself).
 */
export function jumpToErrorBlock(t: ProbeTranslator, next: Label): boolean {
  if (!errorEnv(t)) return false;
  const a = t.a, mem = t.env.mem, area = mem.errorArea!;
  let s = states.get(t);
  if (!s) states.set(t, (s = { block: a.label('error.block'), resumes: [], active: false }));
  if (s.active) {
    // A fault in an ERROR clause: that clause is abandoned and ERROR does not fire again; the
    // consumer is told of a double error (the fault record, tagged).
    a.st(4, R8, mem.buf + 4, DBLERROR_TAG);
    t.output(mem.buf, RECORD_HEADER_SIZE + 24);
    a.ja(next);
    return true;
  }
  for (let i = 0; i < 24; i += 8) {
    a.ldx(8, R1, R8, mem.buf + RECORD_HEADER_SIZE + i);
    a.stx(8, R8, area + DATA + i, R1);
  }
  a.st(8, FP, RESUME_SLOT, s.resumes.length);
  s.resumes.push(next);
  a.ja(s.block);
  return true;
}

/** After the program's exit: the error block, if any fault site jumps to it. */
export function emitErrorBlock(t: ProbeTranslator, runEcb: (plan: EcbPlan) => void, output: (off: number, size: number) => void): void {
  const s = states.get(t);
  const ep = errorEnv(t);
  if (!s || !ep || s.resumes.length === 0) return;
  const a = t.a, env = t.env, mem = env.mem, area = mem.errorArea!;
  a.place(s.block);
  // args[] := (0, epid, action, offset, fault, address, 0...), keeping the probe's own.
  for (let i = 0; i < 10; i++) {
    a.ldx(8, R1, R8, mem.args + 8 * i);
    a.stx(8, R8, area + SAVED_ARGS + 8 * i, R1);
    a.st(8, R8, mem.args + 8 * i, 0);
  }
  for (const [arg, off] of [[1, 0], [2, 4], [3, 8], [4, 12]] as const) {
    a.ldx(4, R1, R8, area + DATA + off);
    if (arg === 3) a.movsx(R1, R1, 32); // -1 when the fault is not at a DIF offset
    a.stx(8, R8, mem.args + 8 * arg, R1);
  }
  a.ldx(8, R1, R8, area + DATA + 16);
  a.stx(8, R8, mem.args + 8 * 5, R1);

  // The ERROR clauses, as the ERROR probe's (not the faulting probe's) ECBs.
  const saved = { shared: env.shared, probeId: env.probeId, probeStrings: env.probeStrings, errno: env.errno };
  const ecbIndex = t.ecbIndex, actionIndex = t.actionIndex;
  Object.assign(env, { shared: undefined, probeId: ep.probeId, probeStrings: ep.strings, errno: undefined });
  s.active = true;
  for (const plan of ep.plans) runEcb(plan);
  s.active = false;
  Object.assign(env, saved);
  t.ecbIndex = ecbIndex, t.actionIndex = actionIndex;

  // Back to the firing probe: its args[], the fault record, and the ECB after the faulting one.
  for (let i = 0; i < 10; i++) {
    a.ldx(8, R1, R8, area + SAVED_ARGS + 8 * i);
    a.stx(8, R8, mem.args + 8 * i, R1);
  }
  a.st(4, R8, mem.buf, 0);
  a.st(4, R8, mem.buf + 4, 0);
  for (let i = 0; i < 24; i += 8) {
    a.ldx(8, R1, R8, area + DATA + i);
    a.stx(8, R8, mem.buf + RECORD_HEADER_SIZE + i, R1);
  }
  output(mem.buf, RECORD_HEADER_SIZE + 24);
  a.ldx(8, R1, FP, RESUME_SLOT);
  s.resumes.forEach((label, k) => a.jmpImm(JMP.JEQ, R1, k, label));
  a.ja(s.resumes[s.resumes.length - 1]);
}

/** Is this dtrace:::ERROR (whose clauses run inside the other programs, not on their own)? */
export function isErrorProbe(p: { attach: { kind: string; which?: string } }): boolean {
  return p.attach.kind === 'dtrace' && p.attach.which === 'ERROR';
}

/** The ERROR probe's clauses among the enabled probes, if any. */
export function findErrorProbe(
  probes: Iterable<{ id: number; attach: { kind: string; which?: string } }>,
  plansByProbe: Map<number, EcbPlan[]>,
  strings: Map<number, ErrorProbeEnv['strings']>,
): ErrorProbeEnv | undefined {
  for (const p of probes) {
    if (isErrorProbe(p)) return { plans: plansByProbe.get(p.id) ?? [], probeId: p.id, strings: strings.get(p.id)! };
  }
  return undefined;
}
