// The syscall provider: syscall:vmlinux:NAME:entry|return for every syscalls/sys_enter_NAME and
// syscalls/sys_exit_NAME tracepoint.
//
// Entry probes: arg0..argN are the sys_enter_NAME record's fields after __syscall_nr, typed as the
// format file declares them. Return probes: arg0 and arg1 are both the return value (the
// sys_exit_NAME `long ret` field); args[0] is typed `long`, arg1 is untyped as in DTrace for Linux.
// Format files are read only when a probe's args are first used, so listing stays fast.
//
// Every probe can also be reached through raw_syscalls:sys_enter / sys_exit, whose records put the
// system call number at offset 8 and the arguments (or the return value) from offset 16, the same
// offsets as the per-call records: the bridge uses that to enable many system calls with one
// attached program (see src/device/linux/dispatch.ts). errno on return is computed from `ret`.

import { type Dispatch, type Probe, type ProbeArg, type Provider } from './provider.js';
import { attr, type ProviderAttributes } from '../abi/stability.js';
import { loadKernelBtf } from '../btf/btf.js';
import { syscallNumbers } from './syscall-numbers.js';
import { TracepointProbe } from './tracepoint-probe.js';
import { listEvents, tracefsRoot, type FormatField } from './tracefs.js';

export { TracepointProbe };

const ATTRIBUTES: ProviderAttributes = {
  provider: attr('Evolving', 'Evolving', 'Common'),
  module: attr('Private', 'Private', 'Unknown'),
  function: attr('Private', 'Private', 'ISA'),
  name: attr('Evolving', 'Evolving', 'Common'),
  args: attr('Private', 'Private', 'ISA'),
};

const GROUP = 'syscalls';
const RAW_GROUP = 'raw_syscalls';
/** Offset of the system call number in raw_syscalls records; `ret` follows it at 16. */
const RAW_ID_OFFSET = 8;
const RET_OFFSET = 16;
const RAW_ARGS_OFFSET = 16;
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

/** raw_syscalls records: sys_enter's `unsigned long args[6]` and sys_exit's `long ret`, at 16. */
const RAW_ENTRY_ARGS: ProbeArg[] = Array.from({ length: 6 }, (_, i) => ({
  index: i, type: null, from: { kind: 'field', offset: RAW_ARGS_OFFSET + 8 * i, size: 8, signed: false },
}));
const RAW_RETURN_ARGS: ProbeArg[] = [0, 1].map((index) => ({
  index, type: null, from: { kind: 'field', offset: RET_OFFSET, size: 8, signed: true },
}));

/** x86's TS_COMPAT in thread_info.status: the task is in a 32-bit system call. */
const TS_COMPAT = 0x0002;
let compatFlag: Dispatch['skipTask'] | null = null;

/** Where the raw syscall dispatcher finds that a system call is a 32-bit one (x86_64 only). */
function compatSyscallFlag(): Dispatch['skipTask'] {
  if (process.arch !== 'x64') return undefined;
  compatFlag ??= { offset: loadKernelBtf().memberPath('task_struct', 'thread_info.status').byteOffset, mask: TS_COMPAT };
  return compatFlag;
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
    const route = (name: string, event: string) => (): Dispatch | null => {
      const nr = syscallNumbers().numbers?.get(name);
      if (nr === undefined) return null;
      // skipTask reads BTF: only when a dispatcher is built, not for every enabled probe.
      const args = event === 'sys_enter' ? RAW_ENTRY_ARGS : RAW_RETURN_ARGS;
      return { group: RAW_GROUP, event, keyOffset: RAW_ID_OFFSET, key: nr, args, get skipTask() { return compatSyscallFlag(); } };
    };
    for (const name of names) {
      if (entries.has(name)) {
        const attach = { kind: 'tracepoint', group: GROUP, event: ENTER + name } as const;
        probes.push(new TracepointProbe('syscall', 'vmlinux', name, 'entry', attach, entryArgs, root, {
          dispatch: route(name, 'sys_enter'),
        }));
      }
      if (exits.has(name)) {
        const attach = { kind: 'tracepoint', group: GROUP, event: EXIT + name } as const;
        probes.push(new TracepointProbe('syscall', 'vmlinux', name, 'return', attach, returnArgs, root, {
          errno: { offset: RET_OFFSET },
          dispatch: route(name, 'sys_exit'),
        }));
      }
    }
    return probes;
  }
}
