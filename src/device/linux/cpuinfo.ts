// curcpu on Linux: a pointer to this CPU's cpuinfo_t (lib/dtrace/sched.d). The device fills one
// array map value with a cpuinfo_t for every possible CPU when it loads the program, from this
// machine's topology, and curcpu is that value's address plus the CPU number times the size, a
// kernel address that DIF loads read as they read any other. `cpu` (curcpu->cpu_id, which the
// compiler emits as LDGS curcpu then LDUW) needs no table: it is bpf_get_smp_processor_id.

import { readFileSync, readdirSync } from 'node:fs';
import { machine } from 'node:os';
import * as D from '../../dif/constants.js';
import { isBranchOp } from '../../dif/builder.js';
import type { Difo } from '../../dif/difo.js';
import { ALU, type BpfAsm, HELPER, R0, R1, R8 } from './bpf-asm.js';

/** sizeof (cpuinfo_t): cpu_id, cpu_pset, cpu_chip, cpu_lgrp, then processor_info_t. */
export const CPUINFO_SIZE = 72;
const PI_STATE = 16, PI_PROCESSOR_TYPE = 20, PI_TYPELEN = 16, PI_FPUTYPES = 36, PI_FPUTYPE = 32, PI_CLOCK = 68;
const P_OFFLINE = 1, P_ONLINE = 2;

/** Is DIF instruction `pc` an `ldgs curcpu, %rN` that `lduw [%rN], %rN` right after makes `cpu`? */
export function isCpuPair(insns: Uint32Array, pc: number): boolean {
  const ld = insns[pc], next = insns[pc + 1];
  if (ld === undefined || next === undefined) return false;
  if (ld >>> 24 !== D.DIF_OP_LDGS || ((ld >>> 8) & 0xffff) !== D.DIF_VAR_CURCPU) return false;
  const rd = ld & 0xff;
  if (next >>> 24 !== D.DIF_OP_LDUW || ((next >>> 16) & 0xff) !== rd || (next & 0xff) !== rd) return false;
  // The LDUW is skipped, so nothing may branch to it.
  return !insns.some((ins) => isBranchOp(ins >>> 24) && (ins & 0xffffff) === pc + 1);
}

/** Does this DIF object use curcpu as a pointer (other than as `cpu`), so needing the table? */
export function usesCpuinfo(difo: Difo): boolean {
  return difo.insns.some((ins, pc) =>
    ins >>> 24 === D.DIF_OP_LDGS && ((ins >>> 8) & 0xffff) === D.DIF_VAR_CURCPU && !isCpuPair(difo.insns, pc));
}

/**
 * R0 = the address of this CPU's cpuinfo_t in the table map `fd`. The map value's address is
 * stored in mem at `slot` and loaded back, so the verifier sees a scalar DIF may add to and load
 * through (as the prologue publishes its own addresses).
 */
export function emitCurcpu(a: BpfAsm, fd: number, slot: number): void {
  a.call(HELPER.get_smp_processor_id);
  a.aluImm(ALU.MUL, R0, CPUINFO_SIZE);
  a.ldMapValue(R1, fd, 0);
  a.stx(8, R8, slot, R1);
  a.ldx(8, R1, R8, slot);
  a.alu(ALU.ADD, R0, R1);
}

/** The cpuinfo_t of CPUs 0..ncpu-1 as this machine describes them. */
export function cpuinfoTable(ncpu: number, online: number[]): Buffer {
  const buf = Buffer.alloc(ncpu * CPUINFO_SIZE);
  const text = procCpuinfo();
  const mhz = cpuMhz(text);
  const type = machine();
  // The FPU type illumos gives x86 processors; elsewhere the list stays empty.
  const fpu = /^(x86_64|i[3-6]86)$/.test(type) && /^fpu\s*:\s*yes/m.test(text) ? 'i387 compatible' : '';
  for (let cpu = 0; cpu < ncpu; cpu++) {
    const at = cpu * CPUINFO_SIZE;
    const sys = `/sys/devices/system/cpu/cpu${cpu}`;
    buf.writeInt32LE(cpu, at); // cpu_id
    buf.writeInt32LE(0, at + 4); // cpu_pset: Linux has no processor sets (DTrace for Linux says 0)
    buf.writeInt32LE(intFile(`${sys}/topology/physical_package_id`) ?? -1, at + 8);
    buf.writeInt32LE(numaNode(sys), at + 12);
    buf.writeInt32LE(online.includes(cpu) ? P_ONLINE : P_OFFLINE, at + PI_STATE);
    buf.write(type.slice(0, PI_TYPELEN - 1), at + PI_PROCESSOR_TYPE, 'latin1');
    buf.write(fpu.slice(0, PI_FPUTYPE - 1), at + PI_FPUTYPES, 'latin1');
    // The rated clock: cpufreq's maximum, which stays put, where /proc/cpuinfo's MHz is the
    // clock of the moment; without cpufreq (virtual machines) /proc/cpuinfo's is fixed.
    const khz = intFile(`${sys}/cpufreq/cpuinfo_max_freq`);
    buf.writeInt32LE(khz !== undefined ? Math.round(khz / 1000) : mhz.get(cpu) ?? 0, at + PI_CLOCK);
  }
  return buf;
}

function intFile(path: string): number | undefined {
  try {
    const n = Number.parseInt(readFileSync(path, 'utf8').trim(), 10);
    return Number.isNaN(n) ? undefined : n;
  } catch {
    return undefined;
  }
}

/** The CPU's NUMA node (its nodeN entry in sysfs), 0 when the kernel names none. */
function numaNode(sys: string): number {
  try {
    for (const n of readdirSync(sys)) {
      const m = /^node(\d+)$/.exec(n);
      if (m) return Number(m[1]);
    }
  } catch { /* no such CPU directory */ }
  return 0;
}

function procCpuinfo(): string {
  try {
    return readFileSync('/proc/cpuinfo', 'utf8');
  } catch {
    return '';
  }
}

/** "cpu MHz" of each processor in /proc/cpuinfo, rounded (architectures without it give none). */
function cpuMhz(text: string): Map<number, number> {
  const out = new Map<number, number>();
  for (const block of text.split(/\n\s*\n/)) {
    const cpu = /^processor\s*:\s*(\d+)/m.exec(block);
    const mhz = /^cpu MHz\s*:\s*([\d.]+)/m.exec(block);
    if (cpu && mhz) out.set(Number(cpu[1]), Math.round(Number(mhz[1])));
  }
  return out;
}
