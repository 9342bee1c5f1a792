// System call numbers of the syscall tracepoints.
//
// The tracepoint files do not say which number each sys_enter_NAME stands for: its
// `__syscall_nr` field is only filled at run time, and the kernel's own mapping (its system call
// table and the syscall tracing metadata) is not published where user space can read it on this
// kernel (no data symbols in /proc/kallsyms; the metadata pointer table is init data, freed after
// boot). The system call numbers are the architecture's ABI, fixed once assigned, and the Linux
// UAPI header asm/unistd_64.h (package linux-libc-dev, which also provides linux/bpf.h) lists
// them; a header older than the kernel just lacks the newest calls, whose probes then attach to
// their own tracepoints instead of the shared dispatcher. A few x86_64 table entries are defined
// in the kernel under another name, which is the tracepoint's: those are translated.

import { existsSync, readFileSync } from 'node:fs';

export const UNISTD_HEADERS = [
  '/usr/include/x86_64-linux-gnu/asm/unistd_64.h',
  '/usr/include/asm/unistd_64.h',
];

/** Header name -> the kernel's SYSCALL_DEFINE name (the tracepoint's), where they differ. */
const KERNEL_NAMES: Record<string, string> = {
  stat: 'newstat',
  fstat: 'newfstat',
  lstat: 'newlstat',
  uname: 'newuname',
  umount2: 'umount',
  sendfile: 'sendfile64',
};

/**
 * x86_64 calls numbered after linux-libc-dev 6.1's header (arch/x86/entry/syscalls/syscall_64.tbl),
 * used when the installed header does not define them, so that a newer kernel's probes can be
 * dispatched too. Numbers never change once assigned.
 */
const NEWER_X86_64: Record<string, number> = {
  uretprobe: 335, uprobe: 336,
  cachestat: 451, fchmodat2: 452, map_shadow_stack: 453, futex_wake: 454, futex_wait: 455,
  futex_requeue: 456, statmount: 457, listmount: 458, lsm_get_self_attr: 459,
  lsm_set_self_attr: 460, lsm_list_modules: 461, mseal: 462, setxattrat: 463, getxattrat: 464,
  listxattrat: 465, removexattrat: 466, open_tree_attr: 467, file_getattr: 468, file_setattr: 469,
};

export interface SyscallNumbers {
  /** Tracepoint name (read, newstat, ...) -> system call number; null when unavailable. */
  numbers: Map<string, number> | null;
  /** Why the numbers are unavailable. */
  reason?: string;
}

let cached: SyscallNumbers | null = null;

/** The mapping, read once per process. Only x86_64 is known. */
export function syscallNumbers(): SyscallNumbers {
  if (cached) return cached;
  if (process.arch !== 'x64') {
    return (cached = { numbers: null, reason: `no system call table for ${process.arch}` });
  }
  const file = UNISTD_HEADERS.find((f) => existsSync(f));
  if (!file) {
    return (cached = { numbers: null, reason: 'asm/unistd_64.h not found (install linux-libc-dev)' });
  }
  const numbers = parseUnistd(readFileSync(file, 'utf8'));
  for (const [name, nr] of Object.entries(NEWER_X86_64)) if (!numbers.has(name)) numbers.set(name, nr);
  return (cached = numbers.size > 0 ? { numbers } : { numbers: null, reason: `${file} defines no __NR_ names` });
}

/** `#define __NR_read 0` lines -> tracepoint name -> number. */
export function parseUnistd(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const m of text.matchAll(/^#define\s+__NR_(\w+)\s+(\d+)\s*$/gm)) {
    out.set(KERNEL_NAMES[m[1]] ?? m[1], Number(m[2]));
  }
  return out;
}
