// When the kernel's verifier rejects a probe's program: say which clause, in DTrace's words.
//
// A probe's program holds every clause enabled on it, so (only on this failure path) the culprit
// is found by bisection: the smallest k whose first k clauses fail to load names clause k, then
// clause k loaded alone says whether it fails by itself or overflowed the program. The message
// follows DTrace on BPF ("BPF program load for 'P' failed: <strerror>") and adds the clause and
// the verifier's own complaint; the whole verifier log, its lines prefixed "BPF: " as DTrace prints them, goes
// with the error for dtrace -v.

import { probeDescriptionString } from '../../dof/program.js';
import type { EcbPlan } from './translate.js';

const STRERROR: Record<string, string> = {
  EINVAL: 'Invalid argument', EACCES: 'Permission denied', EPERM: 'Operation not permitted',
  E2BIG: 'Argument list too long', ENOSPC: 'No space left on device', ENOMEM: 'Cannot allocate memory',
  EFAULT: 'Bad address',
};

export type LoadAttempt = (insns: Buffer, withLog: boolean, plans: EcbPlan[]) => { ok: true } | { ok: false; code?: string; log?: string };

/** Test hook (LinuxDeviceOptions.debug.rejectClause): clause N (1-based)'s program made unverifiable. */
export function sabotageForTest(insns: Buffer, plans: EcbPlan[], n = 0): Buffer {
  if (!n || !plans.some((p) => Number(p.desc.uarg) === n - 1)) return insns;
  // r0 = *(u64 *)(r6 + 0) with r6 never set: "R6 !read_ok".
  const bad = Buffer.alloc(8);
  bad[0] = 0x79, bad[1] = 0x60;
  return Buffer.concat([bad, insns]);
}

/** The verifier's last complaint: the log's last line before its statistics. */
function complaint(log: string | undefined): string | undefined {
  const lines = (log ?? '').split('\n').map((l) => l.trim()).filter((l) => l &&
    !/^processed \d+ insns/.test(l) && !/^verification time/.test(l) && !/^stack depth/.test(l));
  return lines[lines.length - 1];
}

export function explainRejection(o: {
  probe: string;
  code?: string;
  log?: string;
  insns: Buffer;
  plans: EcbPlan[];
  translate: (plans: EcbPlan[]) => Buffer;
  load: LoadAttempt;
}): { message: string; log?: string } {
  let { code, log } = o;
  if (!log) {
    const again = o.load(o.insns, true, o.plans);
    if (!again.ok) log = again.log, code ??= again.code;
  }
  // Bisection over prefixes of the clause list (DTrace's order): the clause that the shortest
  // failing prefix ends with is the culprit (~log2(n) loads; the whole list failed already). One
  // more load of that clause alone tells "it fails by itself" from "too much with those before it".
  const fails = (ps: EcbPlan[]): boolean => {
    try {
      return !o.load(o.translate(ps), false, ps).ok;
    } catch {
      return true;
    }
  };
  let culprit: EcbPlan | undefined = o.plans.length === 1 ? o.plans[0] : undefined;
  let together = '';
  if (o.plans.length > 1) {
    let lo = 1, hi = o.plans.length; // the first hi clauses fail together; the first lo - 1 load
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (fails(o.plans.slice(0, mid))) hi = mid;
      else lo = mid + 1;
    }
    culprit = o.plans[hi - 1];
    if (hi > 1) {
      let alone = true;
      try {
        alone = !o.load(o.translate([culprit]), false, [culprit]).ok;
      } catch {
        alone = false; // cannot be translated alone: name it with the clauses before it
      }
      if (!alone) together = ` after ${hi - 1} clause${hi > 2 ? 's' : ''} before it in the same program`;
    }
  }
  const which = culprit
    ? `clause #${Number(culprit.desc.uarg) + 1} (${probeDescriptionString(culprit.desc.probe)})${together}`
    : `clauses ${o.plans.map((p) => `#${Number(p.desc.uarg) + 1}`).join(', ')}`;
  const why = log && /cannot use helper bpf_probe_write_user/.test(log)
    ? 'copyout( ) and copyoutstr( ) need bpf_probe_write_user, which this kernel forbids (it is locked down)'
    : complaint(log);
  const errno = code ? STRERROR[code] ?? code : 'Invalid argument';
  const message = `BPF program load for '${o.probe}' failed: ${errno}: the verifier rejected ${which}${why ? `: ${why}` : ''}`;
  return { message, log: log ? log.replace(/\n+$/, '').split('\n').map((l) => `BPF: ${l}`).join('\n') : undefined };
}
