// -l: the probes the descriptions, or the clauses of the compiled scripts, name.

import type { Compiled } from '../compiler/compile.js';
import { isSet } from '../options.js';
import { listProbes, type ListSpec } from '../providers/listing.js';
import type { ProbeRegistry } from '../providers/registry.js';
import { Fatal } from './fatal.js';
import { err, type Output } from './output.js';
import type { Settings } from './settings.js';

/** Macro variables and arguments in a -l description ($target, $1, ...), as the compiler expands them. */
function expandMacros(text: string, macros: Map<string, bigint>, args: string[]): string {
  return text.replace(/\$\$?([A-Za-z_]\w*|\d+)/g, (m, name: string) =>
    /^\d+$/.test(name) ? args[Number(name) - 1] ?? m : macros.get(name)?.toString() ?? m);
}

/** -l: the probes each description (or each clause of each script) names. */
export function listSpecs(compiled: Compiled | null, s: Settings, macros: Map<string, bigint>, args: string[]): ListSpec[] {
  const specs: ListSpec[] = [];
  let ecb = 0;
  for (const src of s.sources) {
    if (src.kind !== 's') {
      // Each description is a program of its own, and a program must use the last macro
      // argument (unless -x argref), as when tracing: `-lf read '{...}'` is refused.
      const n = args.length;
      if (n > 0 && !isSet(s.options, 'argref') && !new RegExp(`\\$\\$?${n}(?!\\d)`).test(src.text)) {
        throw new Fatal(`invalid probe specifier ${src.text}: extraneous argument '${args[n - 1]}' ($${n} is not referenced)`);
      }
      specs.push({ kind: src.kind, text: expandMacros(src.text, macros, args) });
      continue;
    }
    // A script lists what its clauses' descriptions match, in order.
    for (const e of compiled?.program.ecbs.slice(ecb) ?? []) {
      const p = e.probe;
      specs.push({ kind: 'n', text: `${p.provider}:${p.module}:${p.function}:${p.name}` });
    }
    ecb = compiled?.program.ecbs.length ?? 0;
  }
  return specs;
}

/** -l: print the probes the specifications match. */
export function listOnly(registry: ProbeRegistry, specs: ListSpec[], s: Settings, output: Output): void {
  output.open();
  const out = listProbes(registry, specs, s.verbose > 0);
  if ('error' in out) throw new Fatal(out.error);
  output.write(out.text);
  if (out.stderr) err(out.stderr);
}
