// Kernel structure offsets the Linux bridge needs, read from the kernel's BTF.

import { loadKernelBtf } from '../../btf/btf.js';

let task: { realParent: number; tgid: number } | null = null;

/** Offsets in struct task_struct of real_parent and tgid (for ppid). */
export function taskOffsets(): { realParent: number; tgid: number } {
  if (!task) {
    const btf = loadKernelBtf();
    task = {
      realParent: btf.memberPath('task_struct', 'real_parent').byteOffset,
      tgid: btf.memberPath('task_struct', 'tgid').byteOffset,
    };
  }
  return task;
}

/** Where a task_struct keeps what the thread-derived built-ins read (context-task.ts). */
export interface TaskFields {
  pid: number;
  tgid: number;
  comm: number;
  realParent: number;
  cred: number;
  /** In struct cred: uid and gid (kuid_t/kgid_t, one u32 each). */
  credUid: number;
  credGid: number;
}

let fields: TaskFields | null = null;

export function taskFields(): TaskFields {
  if (!fields) {
    const btf = loadKernelBtf();
    const at = (struct: string, member: string) => btf.memberPath(struct, member).byteOffset;
    fields = {
      pid: at('task_struct', 'pid'), tgid: at('task_struct', 'tgid'), comm: at('task_struct', 'comm'),
      realParent: at('task_struct', 'real_parent'), cred: at('task_struct', 'cred'),
      credUid: at('cred', 'uid'), credGid: at('cred', 'gid'),
    };
  }
  return fields;
}
