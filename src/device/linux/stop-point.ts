// A stop point for a -c command (-x evaltime=postinit, DTrace's default): a uretprobe on a
// function of the command that stops the whole process (bpf_send_signal(SIGSTOP)) when that
// function returns, so that dtrace enables its probes while the process waits there, as DTrace
// stops a created process after its initializers have run and before main().

import { constants } from 'node:os';
import { native } from '../native.js';
import { BpfAsm, HELPER, R0, R1 } from './bpf-asm.js';
import { emitPidFilter, uprobeEvents } from './uprobe.js';

/** An armed stop point; close() removes it (the process may still stop if it fired already). */
export interface StopPoint {
  close(): void;
}

/** Stop process `pid` when the function at `offset` in file `path` returns. */
export function stopOnReturn(path: string, offset: number, pid: number): StopPoint {
  const a = new BpfAsm();
  emitPidFilter(a, pid);
  a.movImm(R1, constants.signals.SIGSTOP);
  a.call(HELPER.send_signal);
  a.movImm(R0, 0);
  a.exit();
  const prog = native.progLoad({ type: 2 /* KPROBE */, insns: a.finish(), license: 'GPL', name: 'dt_evaltime' });
  const fds: number[] = [];
  try {
    for (const o of uprobeEvents({ kind: 'uprobe', path, offset, retprobe: true, pid }, [])) {
      const fd = native.perfEventOpen({ ...o, disabled: true });
      fds.push(fd);
      native.perfEventSetBpf(fd, prog);
      native.perfEventEnable(fd);
    }
  } catch (e) {
    for (const fd of fds) native.close(fd);
    native.close(prog);
    throw e;
  }
  return {
    close(): void {
      for (const fd of fds) native.close(fd);
      native.close(prog);
    },
  };
}
