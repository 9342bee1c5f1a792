// The Linux bridge's part for user-space probes (pid, USDT): uprobe perf events and the prologue
// that reads a probe's arguments from the interrupted user registers (struct pt_regs, the context
// of a BPF_PROG_TYPE_KPROBE program).

import { closeSync, openSync, readFileSync, readSync } from 'node:fs';
import type { ArgSource, Attach } from '../../providers/provider.js';
import { native, type PerfEventOpenOptions } from '../native.js';
import { ALU, type BpfAsm, HELPER, JMP, R0, R1, R2, R3, R8, R9, type Size } from './bpf-asm.js';
import type { MemLayout } from './translate.js';

type UprobeAttach = Extract<Attach, { kind: 'uprobe' }>;
type UserArg = Extract<ArgSource, { kind: 'register' | 'memory' | 'constant' }>;

/** Byte offsets of the registers in x86_64 struct pt_regs. */
export const PT_REGS: Record<string, number> = {
  r15: 0, r14: 8, r13: 16, r12: 24, rbp: 32, rbx: 40, r11: 48, r10: 56, r9: 64, r8: 72,
  rax: 80, rcx: 88, rdx: 96, rsi: 104, rdi: 112, rip: 128, rsp: 152,
};

const UPROBE_PMU = '/sys/bus/event_source/devices/uprobe';

export function isUserArg(src: ArgSource): src is UserArg {
  return src.kind === 'register' || src.kind === 'memory' || src.kind === 'constant';
}

/** Leave the program unless the current process is `pid` (a probe for one process). */
export function emitPidFilter(a: BpfAsm, pid: number): void {
  const mine = a.label('pid.mine');
  a.call(HELPER.get_current_pid_tgid);
  a.aluImm(ALU.RSH, R0, 32);
  a.jmpImm(JMP.JEQ, R0, pid, mine);
  a.movImm(R0, 0);
  a.exit();
  a.place(mine);
}

/** Store one user argument into mem.args[index] (r9 = pt_regs, r8 = scratch memory). */
export function emitUserArg(a: BpfAsm, mem: MemLayout, index: number, src: UserArg): void {
  const slot = mem.args + 8 * index;
  if (src.kind === 'constant') {
    a.ld64(R0, src.value);
    a.stx(8, R8, slot, R0);
    return;
  }
  const reg = PT_REGS[src.reg];
  if (reg === undefined) throw new Error(`no pt_regs slot for register ${src.reg}`);
  if (src.kind === 'register') {
    a.ldx(8, R0, R9, reg);
    extend(a, src.size, src.signed);
    a.stx(8, R8, slot, R0);
    return;
  }
  // User memory at register + disp, read into the slot (zeroed by the helper if it faults).
  a.mov(R1, R8);
  a.aluImm(ALU.ADD, R1, slot);
  a.movImm(R2, src.size);
  a.ldx(8, R3, R9, reg);
  if (src.disp !== 0) a.aluImm(ALU.ADD, R3, src.disp);
  a.call(HELPER.probe_read_user);
  if (src.size < 8) {
    a.ldx(src.size, R0, R8, slot);
    if (src.signed) a.movsx(R0, R0, (src.size * 8) as 8 | 16 | 32);
    a.stx(8, R8, slot, R0);
  }
}

/** Keep the low `size` bytes of r0, sign- or zero-extended. */
function extend(a: BpfAsm, size: Size, signed: boolean): void {
  if (size === 8) return;
  if (signed) a.movsx(R0, R0, (size * 8) as 8 | 16 | 32);
  else if (size === 4) a.mov32(R0, R0);
  else a.aluImm(ALU.AND, R0, size === 2 ? 0xffff : 0xff);
}

let pmuType: number | null = null;

/** The uprobe PMU's dynamic perf event type. */
export function uprobePmuType(): number {
  if (pmuType === null) {
    const text = readFileSync(`${UPROBE_PMU}/type`, 'utf8').trim();
    pmuType = Number(text);
    if (!Number.isInteger(pmuType)) throw new Error(`unexpected uprobe PMU type "${text}"`);
  }
  return pmuType;
}

/** The config bit where the uprobe PMU takes the reference counter offset ("config:32-63"). */
export function refCtrShift(formatFile = `${UPROBE_PMU}/format/ref_ctr_offset`): bigint {
  const text = readFileSync(formatFile, 'utf8').trim();
  const m = /^config:(\d+)-\d+$/.exec(text);
  if (!m) throw new Error(`unexpected uprobe ref_ctr_offset format "${text}" in ${formatFile}`);
  return BigInt(m[1]);
}

/**
 * perf_event_open options for one uprobe event: on the probe's process when it names one (the
 * kernel then places the breakpoint in that process only), else on each of `cpus`.
 */
export function uprobeEvents(at: UprobeAttach, cpus: number[]): PerfEventOpenOptions[] {
  const config = at.refCtrOffset ? BigInt(at.refCtrOffset) << refCtrShift() : 0n;
  const base = {
    type: uprobePmuType(), config, uprobePath: at.path, probeOffset: at.offset, retprobe: at.retprobe,
    samplePeriod: 1,
  };
  if (at.pid !== undefined) return [{ ...base, pid: at.pid, cpu: -1 }];
  return cpus.map((cpu) => ({ ...base, pid: -1, cpu }));
}

/** Why the kernel refused a uprobe event, for the user. */
export function uprobeFailure(at: UprobeAttach, e: unknown): string {
  const code = (e as { code?: string }).code;
  const where = `${at.path} at offset 0x${at.offset.toString(16)}`;
  // ENOTSUPP (524): the instruction there cannot be single-stepped out of line (e.g. lock-prefixed).
  if (code === 'E524' || code === 'ENOTSUPP') return `the kernel cannot place a uprobe on the instruction in ${where}`;
  if (code === 'ENOENT') return `${at.path}: No such file or directory`;
  if (code === 'ESRCH') return `process ${at.pid} has exited`;
  return `uprobe on ${where}: ${(e as Error).message}`;
}

/** BPF_TRACE_UPROBE_MULTI: the expected attach type of a program for uprobeMultiAttach (6.6+). */
export const BPF_TRACE_UPROBE_MULTI = 48;

let multiSupported: boolean | null = null;

/**
 * Can this kernel attach one program to many uprobes at once (BPF_TRACE_UPROBE_MULTI links)? A
 * trivial program of that attach type is loaded and linked to "/": a kernel that knows the link
 * type refuses the path with EBADF; an older one refuses the attach type with EINVAL.
 */
export function uprobeMultiSupported(): boolean {
  if (multiSupported !== null) return multiSupported;
  let prog = -1;
  try {
    const insns = Buffer.alloc(16);
    insns.writeUInt8(0xb7, 0); // r0 = 0
    insns.writeUInt8(0x95, 8); // exit
    prog = native.progLoad({ type: 2 /* KPROBE */, insns, license: 'GPL', expectedAttachType: BPF_TRACE_UPROBE_MULTI });
    const link = native.uprobeMultiAttach(prog, '/', u64s([0n]), null, null, 0, false);
    native.close(link);
    multiSupported = true;
  } catch (e) {
    multiSupported = (e as { code?: string }).code === 'EBADF';
  } finally {
    if (prog >= 0) native.close(prog);
  }
  return multiSupported;
}

/** A program that does nothing: for uprobes placed only to raise a semaphore (SemaphoreHold). */
export function loadNopProgram(): number {
  const insns = Buffer.alloc(16);
  insns.writeUInt8(0xb7, 0); // r0 = 0
  insns.writeUInt8(0x95, 8); // exit
  const multi = uprobeMultiSupported() ? { expectedAttachType: BPF_TRACE_UPROBE_MULTI } : {};
  return native.progLoad({ type: 2 /* KPROBE */, insns, license: 'GPL', name: 'dt_semaphore', ...multi });
}

/** One uprobe site for attachUprobeMulti, with the cookie the program reads (bpf_get_attach_cookie). */
export interface MultiSite {
  at: UprobeAttach;
  cookie?: bigint;
}

/**
 * Attach `progFd` (loaded with BPF_TRACE_UPROBE_MULTI) to every site, one link per file, process
 * and kind (entry or return): attaching and detaching many uprobes then costs one bpf(2) call and
 * one release each instead of one perf event per probe, whose every close waits for the kernel's
 * grace periods (~100 ms). Returns the link fds; closing them detaches.
 */
export function attachUprobeMulti(progFd: number, sites: MultiSite[]): number[] {
  const links: number[] = [];
  try {
    for (const group of byLink(sites)) links.push(link(progFd, group));
  } catch (e) {
    for (const fd of links) native.close(fd);
    throw e;
  }
  return links;
}

/**
 * As attachUprobeMulti, but a site whose instruction the kernel refuses to probe (a lock prefix,
 * an instruction it cannot step out of line) is left out rather than failing the rest: a link
 * that fails is split in halves and each tried again, so k refused sites among n cost about
 * k log n attempts. Sites whose instruction is known to be refused are not tried. Any other
 * failure (no such file, the process has gone) is thrown.
 */
export function attachUprobeMultiSkipping(progFd: number, sites: MultiSite[]): { links: number[]; refused: { site: MultiSite; error: unknown }[] } {
  const links: number[] = [];
  const refused: { site: MultiSite; error: unknown }[] = [];
  const attempt = (group: MultiSite[]): void => {
    try {
      links.push(link(progFd, group));
    } catch (e) {
      if (!siteRefused(e)) throw e;
      if (group.length === 1) {
        refused.push({ site: group[0], error: e });
        return;
      }
      const half = group.length >> 1;
      attempt(group.slice(0, half));
      attempt(group.slice(half));
    }
  };
  try {
    for (const group of byLink(sites)) {
      const ok = group.filter((s) => {
        if (!knownUnprobeable(s.at)) return true;
        refused.push({ site: s, error: Object.assign(new Error('unprobeable instruction'), { code: 'ENOTSUPP' }) });
        return false;
      });
      if (ok.length > 0) attempt(ok);
    }
  } catch (e) {
    for (const fd of links) native.close(fd);
    throw e;
  } finally {
    for (const fd of openFiles.values()) if (fd !== null) closeSync(fd);
    openFiles.clear();
  }
  return { links, refused };
}

/** The kernel refused a site's instruction (ENOTSUPP, or EINVAL/ENOEXEC for one it cannot decode). */
function siteRefused(e: unknown): boolean {
  const code = (e as { code?: string }).code;
  return code === 'E524' || code === 'ENOTSUPP' || code === 'EINVAL' || code === 'ENOEXEC';
}

/** Sites grouped as one link takes them: one file, one process, entry or return. */
function byLink(sites: MultiSite[]): MultiSite[][] {
  const groups = new Map<string, MultiSite[]>();
  for (const s of sites) {
    const key = `${s.at.retprobe ? 'r' : 'e'}:${s.at.pid ?? 0}:${s.at.path}`;
    const g = groups.get(key);
    if (g) g.push(s);
    else groups.set(key, [s]);
  }
  return [...groups.values()];
}

function link(progFd: number, group: MultiSite[]): number {
  const { path, pid, retprobe } = group[0].at;
  const refCtr = group.some((s) => s.at.refCtrOffset) ? u64s(group.map((s) => BigInt(s.at.refCtrOffset ?? 0))) : null;
  const cookies = group.some((s) => s.cookie !== undefined) ? u64s(group.map((s) => s.cookie ?? 0n)) : null;
  return native.uprobeMultiAttach(progFd, path, u64s(group.map((s) => BigInt(s.at.offset))), refCtr, cookies, pid ?? 0, retprobe);
}

/**
 * x86's uprobes refuse an instruction with a LOCK or an ES/CS/SS/DS segment prefix (it would
 * not behave the same stepped out of line): such a first instruction (pthread_spin_lock's
 * `lock decl`) is known to fail, so it is not tried. Legacy prefixes precede the opcode.
 */
function knownUnprobeable(at: UprobeAttach): boolean {
  const bytes = instructionBytes(at.path, at.offset);
  for (const b of bytes) {
    if (b === 0xf0 || b === 0x26 || b === 0x2e || b === 0x36 || b === 0x3e) return true;
    if (![0x66, 0x67, 0xf2, 0xf3, 0x64, 0x65].includes(b)) return false;
  }
  return false;
}

const openFiles = new Map<string, number | null>();

/** Up to 15 bytes (x86's longest instruction) of a file at an offset; none if unreadable. */
function instructionBytes(path: string, offset: number): Buffer {
  let fd = openFiles.get(path);
  if (fd === undefined) {
    try {
      fd = openSync(path, 'r');
    } catch {
      fd = null;
    }
    openFiles.set(path, fd);
  }
  if (fd === null) return Buffer.alloc(0);
  const b = Buffer.alloc(15);
  try {
    return b.subarray(0, readSync(fd, b, 0, 15, offset));
  } catch {
    return Buffer.alloc(0);
  }
}

function u64s(values: bigint[]): Buffer {
  const b = Buffer.alloc(8 * values.length);
  values.forEach((v, i) => b.writeBigUInt64LE(v, 8 * i));
  return b;
}
