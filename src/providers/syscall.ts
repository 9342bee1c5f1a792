// The syscall provider: syscall:vmlinux:NAME:entry|return for every syscalls/sys_enter_NAME and
// syscalls/sys_exit_NAME tracepoint.
//
// Entry probes: arg0..argN are the sys_enter_NAME record's fields after __syscall_nr, typed as the
// format file declares them. Return probes: arg0 and arg1 are both the return value (the
// sys_exit_NAME `long ret` field); args[0] is typed `long`, arg1 is untyped as in DTrace for Linux.
// Format files are read only when a probe's args are first used, so listing stays fast.

import {
  attr,
  type Attach,
  type Probe,
  type ProbeArg,
  type Provider,
  type ProviderAttributes,
} from './provider.js';
import { eventFormat, listEvents, tracefsRoot, type FormatField } from './tracefs.js';

const ATTRIBUTES: ProviderAttributes = {
  provider: attr('Evolving', 'Evolving', 'Common'),
  module: attr('Private', 'Private', 'Unknown'),
  function: attr('Private', 'Private', 'ISA'),
  name: attr('Evolving', 'Evolving', 'Common'),
  args: attr('Private', 'Private', 'ISA'),
};

const GROUP = 'syscalls';
const ENTER = 'sys_enter_';
const EXIT = 'sys_exit_';

/** A probe backed by a tracepoint whose arguments are worked out from its format on first use. */
export class TracepointProbe implements Probe {
  id = 0;
  private cachedArgs: ProbeArg[] | null = null;

  constructor(
    readonly provider: string,
    readonly module: string,
    readonly func: string,
    readonly name: string,
    readonly attach: Extract<Attach, { kind: 'tracepoint' }>,
    private readonly argsFromFormat: (fields: FormatField[]) => ProbeArg[],
    private readonly root: string,
  ) {}

  get args(): ProbeArg[] {
    if (this.cachedArgs === null) {
      const format = eventFormat(this.attach.group, this.attach.event, this.root);
      this.cachedArgs = this.argsFromFormat(format.fields);
    }
    return this.cachedArgs;
  }
}

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

export class SyscallProvider implements Provider {
  readonly name = 'syscall';
  readonly attributes = ATTRIBUTES;

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
      if (entries.has(name)) {
        const attach = { kind: 'tracepoint', group: GROUP, event: ENTER + name } as const;
        probes.push(new TracepointProbe('syscall', 'vmlinux', name, 'entry', attach, entryArgs, root));
      }
      if (exits.has(name)) {
        const attach = { kind: 'tracepoint', group: GROUP, event: EXIT + name } as const;
        probes.push(new TracepointProbe('syscall', 'vmlinux', name, 'return', attach, returnArgs, root));
      }
    }
    return probes;
  }
}
