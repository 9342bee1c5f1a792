// A vitest reporter that lists, after the run, every skipped test with the reason it was skipped:
// the note given to ctx.skip(reason), else the "(skipped: REASON)" a describe.skipIf(...) name
// carries. A whole suite skipped for one reason is one line with its count. Used beside the
// default reporter (vitest.config.ts), so CI's log says what did not run, and why.
import type { Reporter, TestCase, TestModule, TestSuite } from 'vitest/node';

function reasonOf(t: TestCase): string {
  const r = t.result();
  if (r.state === 'skipped' && r.note) return r.note;
  for (let p: TestSuite | TestModule = t.parent; p.type === 'suite'; p = p.parent) {
    const m = /\(skipped: (.*)\)$/.exec(p.name);
    if (m) return m[1];
  }
  const m = /\(skipped: (.*)\)$/.exec(t.name);
  return m ? m[1] : '';
}

export default class SkipReporter implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    // file -> reason -> test names
    const skipped = new Map<string, Map<string, string[]>>();
    let total = 0;
    for (const mod of modules) {
      for (const t of mod.children.allTests()) {
        const r = t.result();
        if (r.state !== 'skipped') continue;
        total++;
        const byReason = skipped.get(mod.relativeModuleId) ?? new Map<string, string[]>();
        skipped.set(mod.relativeModuleId, byReason);
        const reason = reasonOf(t);
        byReason.set(reason, [...(byReason.get(reason) ?? []), t.fullName.replace(/ \(skipped: .*?\)( > |$)/g, '$1')]);
      }
    }
    if (total === 0) return;
    const out: string[] = [`\nSkipped tests (${total}), with their reasons:`];
    let unexplained = 0;
    for (const [file, byReason] of skipped) {
      for (const [reason, names] of byReason) {
        if (reason === '') unexplained += names.length;
        else if (names.length > 3) out.push(`  ${file}: ${names.length} tests: ${reason}`);
        else for (const n of names) out.push(`  ${file} > ${n}: ${reason}`);
      }
    }
    if (unexplained) out.push(`  and ${unexplained} left out by a filter (-t), .skip or .todo, without a reason`);
    process.stdout.write(out.join('\n') + '\n');
  }
}
