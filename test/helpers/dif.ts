// Compile D in-process and run its clauses on the reference DIF machine (no kernel).
import { compile, SourceError } from '../../src/compiler/compile.js';
import { ProbeRegistry } from '../../src/providers/registry.js';
import type { Program } from '../../src/dof/program.js';
import { DifMachine, type ProbeContext } from '../../src/dif/machine.js';

const registry = new ProbeRegistry();

export function compileScript(text: string, options = new Map<string, string>()): Program {
  return compile([{ kind: 's', text, name: 'test.d' }], { registry, options, macroArgs: [], zdefs: true }).program;
}

/** "TAG: message" of the compile error the text gives (throws if it compiles). */
export function compileError(text: string): string {
  try {
    compileScript(text);
  } catch (e) {
    if (e instanceof SourceError) return `${e.error.tag}: ${e.error.message}`;
    throw e;
  }
  throw new Error('compiled');
}

/**
 * Run every clause of one probe firing as the kernel does: predicates decide, void actions run for
 * their side effects, and the other actions' values are returned -- integers read at their record
 * width when `recordWidth`, else as 64-bit signed values.
 */
export function fire(text: string, m = new DifMachine(), ctx: ProbeContext = { tid: 1n }, recordWidth = false): (bigint | string)[] {
  const out: (bigint | string)[] = [];
  m.newFiring();
  for (const ecb of compileScript(text).ecbs) {
    if (ecb.predicate && m.run(ecb.predicate, ctx).value === 0n) continue;
    for (const a of ecb.actions) {
      if (!a.difo) continue;
      const r = m.run(a.difo, ctx);
      if (a.difo.rtype.size === 0) continue;
      out.push(r.string !== undefined ? r.string : BigInt.asIntN(recordWidth ? a.difo.rtype.size * 8 : 64, r.value));
    }
  }
  return out;
}
