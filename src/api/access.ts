// Whether a handle can be opened (dtrace_open()): the privileges to trace, and the native addon.
// Whether this process may trace: DTrace refuses up front ("failed to initialize dtrace: DTrace
// requires additional privileges"), before any program is compiled or probe listed, rather than
// failing later on whichever system call is refused first.

import { readFileSync } from 'node:fs';
import { addonUnavailable } from '../device/native.js';

const CAP_SYS_ADMIN = 21n;
const CAP_PERFMON = 38n;
const CAP_BPF = 39n;

/** Why this process cannot trace, or null when it can (root, CAP_SYS_ADMIN, or CAP_BPF with CAP_PERFMON). */
export function missingPrivileges(): string | null {
  if (process.geteuid?.() === 0) return null;
  let effective = 0n;
  try {
    const m = /^CapEff:\s*([0-9a-f]+)$/m.exec(readFileSync('/proc/self/status', 'utf8'));
    if (m) effective = BigInt(`0x${m[1]}`);
  } catch {
    // no /proc: assume none
  }
  const has = (cap: bigint) => (effective >> cap) & 1n;
  if (has(CAP_SYS_ADMIN) || (has(CAP_BPF) && has(CAP_PERFMON))) return null;
  return 'on Linux, tracing needs root, or the capabilities CAP_BPF and CAP_PERFMON and read access to /sys/kernel/tracing';
}

/** Why no handle can be opened here (privileges, or the native addon not built), or null. */
export function cannotOpen(): string | null {
  const why = missingPrivileges();
  if (why) return `DTrace requires additional privileges: ${why}`;
  return addonUnavailable()?.message ?? null;
}
