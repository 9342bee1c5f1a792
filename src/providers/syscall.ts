// The syscall provider: syscall:vmlinux:NAME:entry|return for every syscalls/sys_enter_NAME and
// syscalls/sys_exit_NAME tracepoint.
//
// Entry probes: arg0..argN are the system call's arguments, typed as the sys_enter_NAME format
// declares its fields after __syscall_nr. Return probes: arg0 and arg1 are both the return value
// (the sys_exit_NAME `long ret` field); args[0] is typed `long`, arg1 is untyped as in DTrace for
// Linux. Format files are read only when a probe's args are first used, so listing stays fast.
//
// Where the system call's number is known (x86_64), a probe fires from the raw tracepoints
// sys_enter and sys_exit (BPF_PROG_TYPE_RAW_TRACEPOINT, context u64[]{ regs, id } and
// { regs, ret }) for its number, not from its own tracepoint: a tracepoint program holds the CPU's
// bpf_prog_active while it runs, and the kernel silently skips a profile or tick program whose
// timer lands then, so under a system call storm tick-1s fired 12 times in 15 s (issue 21). A raw
// tracepoint program only refuses to run inside itself. Arguments are read from the registers the
// thread entered the kernel with, as the per-call tracepoints read them, and the number on return
// from orig_ax, as they do. Many probes share one program per raw tracepoint (dispatch.ts); 32-bit
// system calls, numbered differently, are left alone, as the per-call tracepoints leave them.

import type { Attach, Dispatch, Guard, Probe, ProbeArg, Provider } from './provider.js';
import { attr, type ProviderAttributes } from '../abi/stability.js';
import { loadKernelBtf } from '../btf/btf.js';
import { syscallNumbers } from './syscall-numbers.js';
import { eventFormat, listEvents, tracefsRoot, type FormatField } from './tracefs.js';

const ATTRIBUTES: ProviderAttributes = {
  provider: attr('Evolving', 'Evolving', 'Common'),
  module: attr('Private', 'Private', 'Unknown'),
  function: attr('Private', 'Private', 'ISA'),
  name: attr('Evolving', 'Evolving', 'Common'),
  args: attr('Private', 'Private', 'ISA'),
};

const GROUP = 'syscalls';
/** Offset of `ret` in a sys_exit_NAME record. */
const RET_OFFSET = 16;
/** The raw tracepoints' context: u64 regs, then the number (sys_enter) or the return value (sys_exit). */
const RAW_SECOND = 1;
const ENTER = 'sys_enter_';
const EXIT = 'sys_exit_';

function fieldArg(index: number, type: string | null, f: FormatField): ProbeArg {
  return { index, type, from: { kind: 'field', offset: f.offset, size: f.size, signed: f.signed } };
}

/** Entry: the record's own fields after __syscall_nr, in order. */
export function entryArgs(fields: FormatField[]): ProbeArg[] {
  return fields
    .filter((f) => !f.common && f.name !== '__syscall_nr')
    .map((f, i) => fieldArg(i, f.type, f));
}

/** Return: arg0 and arg1 both read `ret`. */
export function returnArgs(fields: FormatField[]): ProbeArg[] {
  const ret = fields.find((f) => f.name === 'ret');
  if (!ret) throw new Error('syscall exit tracepoint has no "ret" field');
  return [fieldArg(0, ret.type, ret), fieldArg(1, null, ret)];
}

/** Where struct pt_regs holds a system call's arguments and its number (orig_ax on return). */
export interface EntryRegisters {
  args: number[];
  nr: number;
  /** Task_struct word and bit of a 32-bit system call in progress (TS_COMPAT of thread_info.status). */
  compat: { offset: number; mask: number };
}

/** x86_64's system call argument registers, in order (syscall_get_arguments). */
const X86_64_ARGS = ['di', 'si', 'dx', 'r10', 'r8', 'r9'];
/** x86's TS_COMPAT in thread_info.status: the task is in a 32-bit system call. */
const TS_COMPAT = 0x0002;
let entryRegs: EntryRegisters | null | undefined;

/** This machine's EntryRegisters, from BTF; null where only the per-call tracepoints are used. */
export function entryRegisters(): EntryRegisters | null {
  if (entryRegs !== undefined) return entryRegs;
  if (process.arch !== 'x64') return (entryRegs = null);
  const btf = loadKernelBtf();
  const at = (m: string) => btf.memberPath('pt_regs', m).byteOffset;
  return (entryRegs = {
    args: X86_64_ARGS.map(at), nr: at('orig_ax'),
    compat: { offset: btf.memberPath('task_struct', 'thread_info.status').byteOffset, mask: TS_COMPAT },
  });
}

/** Entry arguments: each from its entry register (typed as given; the dispatcher's untyped). */
export function rawEntryArgs(typed: Omit<ProbeArg, 'from'>[], regs: EntryRegisters): ProbeArg[] {
  return typed.map((a) => ({ ...a, from: { kind: 'entryRegister', offset: regs.args[a.index] } }));
}

/** Return values: the raw tracepoint's second argument. */
export function rawReturnArgs(typed: Omit<ProbeArg, 'from'>[]): ProbeArg[] {
  return typed.map((a) => ({ ...a, from: { kind: 'raw', index: RAW_SECOND } }));
}

/** arg0..arg{n-1}, untyped. */
function untyped(n: number): Omit<ProbeArg, 'from'>[] {
  return Array.from({ length: n }, (_, index) => ({ index, type: null }));
}

/** A system call's entry or return probe. */
class SyscallProbe implements Probe {
  id = 0;
  readonly provider = 'syscall';
  readonly module = 'vmlinux';
  private cachedArgs: ProbeArg[] | null = null;
  private cachedRaw: { nr: number; regs: EntryRegisters } | null | undefined;

  constructor(readonly func: string, readonly name: 'entry' | 'return', private readonly root: string) {}

  private get entry(): boolean {
    return this.name === 'entry';
  }

  /** Its number and the registers, when it fires from the raw tracepoints. */
  private get raw(): { nr: number; regs: EntryRegisters } | null {
    if (this.cachedRaw !== undefined) return this.cachedRaw;
    const nr = syscallNumbers().numbers?.get(this.func);
    const regs = nr === undefined ? null : entryRegisters();
    return (this.cachedRaw = nr !== undefined && regs ? { nr, regs } : null);
  }

  get attach(): Attach {
    if (this.raw) return { kind: 'rawTracepoint', event: this.entry ? 'sys_enter' : 'sys_exit' };
    return { kind: 'tracepoint', group: GROUP, event: (this.entry ? ENTER : EXIT) + this.func };
  }

  get args(): ProbeArg[] {
    if (this.cachedArgs) return this.cachedArgs;
    const fields = eventFormat(GROUP, (this.entry ? ENTER : EXIT) + this.func, this.root).fields;
    const typed = this.entry ? entryArgs(fields) : returnArgs(fields);
    const raw = this.raw;
    return (this.cachedArgs = !raw ? typed : this.entry ? rawEntryArgs(typed, raw.regs) : rawReturnArgs(typed));
  }

  /** From the raw tracepoints: this system call's number, and not a 32-bit one. */
  get guard(): Guard[] | undefined {
    const raw = this.raw;
    if (!raw) return undefined;
    const { regs, nr } = raw;
    const key: Guard = this.entry ? { offset: 8 * RAW_SECOND, size: 8, value: nr, op: 'eq' }
      : { in: 'entryRegisters', offset: regs.nr, size: 8, value: nr, op: 'eq' };
    return [key, { in: 'task', offset: regs.compat.offset, size: 4, mask: regs.compat.mask, op: 'eq' }];
  }

  get errno(): Probe['errno'] {
    if (this.entry) return undefined;
    return { offset: this.raw ? 8 * RAW_SECOND : RET_OFFSET };
  }

  dispatch(): Dispatch | null {
    const raw = this.raw;
    if (!raw) return null;
    const { regs, nr } = raw;
    return {
      event: this.entry ? 'sys_enter' : 'sys_exit',
      keyFrom: this.entry ? { kind: 'raw', index: RAW_SECOND } : { kind: 'entryRegister', offset: regs.nr },
      key: nr,
      args: this.entry ? rawEntryArgs(untyped(regs.args.length), regs) : rawReturnArgs(untyped(2)),
      skipTask: regs.compat,
    };
  }
}

export class SyscallProvider implements Provider {
  readonly name = 'syscall';
  readonly attributes = ATTRIBUTES;
  hasProbeNamed = (name: string): boolean => name === 'entry' || name === 'return';

  /** `root`: the tracefs mount point; found (or mounted) on first use when not given. */
  constructor(private readonly root?: string) {}

  list(): Probe[] {
    const root = this.root ?? tracefsRoot();
    const entries = new Set<string>();
    const exits = new Set<string>();
    for (const event of listEvents(GROUP, root)) {
      if (event.startsWith(ENTER)) entries.add(event.slice(ENTER.length));
      else if (event.startsWith(EXIT)) exits.add(event.slice(EXIT.length));
    }
    const names = [...new Set([...entries, ...exits])].sort();
    const probes: Probe[] = [];
    for (const name of names) {
      if (entries.has(name)) probes.push(new SyscallProbe(name, 'entry', root));
      if (exits.has(name)) probes.push(new SyscallProbe(name, 'return', root));
    }
    return probes;
  }
}
