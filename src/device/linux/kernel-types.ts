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
