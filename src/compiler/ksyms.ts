// Kernel symbols named in D with a backquote: `` `name `` (any kernel module) and `` mod`name ``.
// Addresses come from /proc/kallsyms, types from the kernel's BTF (VAR entries, which the kernel
// emits for per-CPU variables only, and FUNC entries); a symbol without a type is DTrace's
// D_SYM_NOTYPES. Messages are those of libdtrace's dt_xcook_ident.

import { readFileSync } from 'node:fs';
import { parseKallsyms, type KernelSymbol } from '../sys/symbols.js';
import { systemPaths } from '../sys/paths.js';

let byName: Map<string, KernelSymbol[]> | undefined;

function table(): Map<string, KernelSymbol[]> {
  if (byName) return byName;
  byName = new Map();
  let text = '';
  try {
    text = readFileSync(systemPaths.kallsyms, 'utf8');
  } catch {
    // unreadable: no symbols
  }
  for (const s of parseKallsyms(text)) {
    const list = byName.get(s.name);
    if (list) list.push(s);
    else byName.set(s.name, [s]);
  }
  return byName;
}

/**
 * The symbol `name` in kernel module `module` ('' for any: vmlinux first, then the modules), as
 * dtrace_lookup_by_name finds it; undefined when there is none.
 */
export function lookupKernelSymbol(module: string, name: string): KernelSymbol | undefined {
  const list = table().get(name);
  if (!list) return undefined;
  if (module !== '') return list.find((s) => s.module === module);
  return list.find((s) => s.module === 'vmlinux') ?? list[0];
}

/**
 * Whether libdtrace knows `module`: the kernel, a module some symbol of /proc/kallsyms belongs
 * to, or one of the modules it always has (D's and C's types; genunix, which names the kernel).
 */
export function isKernelModule(module: string): boolean {
  if (module === 'vmlinux' || module === 'D' || module === 'C' || module === 'genunix') return true;
  for (const list of table().values()) if (list.some((s) => s.module === module)) return true;
  return false;
}
