import { describe, expect, it } from 'vitest';
import { compile } from '../../src/compiler/compile.js';
import { ProbeRegistry } from '../../src/providers/registry.js';

const registry = new ProbeRegistry();

function attrs(text: string) {
  const c = compile([{ kind: 's', text, name: 'x.d' }], { registry, options: new Map(), macroArgs: [], zdefs: true });
  const a = c.attributes[0];
  return [a.descAttr, a.stmtAttr].map((x) => `${x.name}/${x.data}/${x.dependency}`);
}

describe('stability attributes (dtrace -v)', () => {
  it('takes the provider attributes of the elements a description names', () => {
    expect(attrs('dtrace:::BEGIN { exit(0); }')).toEqual(['Stable/Stable/Common', 'Stable/Stable/Common']);
    expect(attrs('BEGIN { exit(0); }')[0]).toBe('Unstable/Unstable/Common');
    expect(attrs('dtrace:::BEGIN { } BEGIN { }')[0]).toBe('Unstable/Unstable/Common');
  });

  it('lowers statement attributes by what the statements use', () => {
    expect(attrs('dtrace:::BEGIN { trace(curthread->pid); }')[1]).toBe('Stable/Private/Common');
    expect(attrs('dtrace:::BEGIN { trace(sizeof (struct task_struct)); }')[1]).toBe('Private/Private/Unknown');
    expect(attrs('struct s { int a; }; dtrace:::BEGIN { trace(sizeof (struct s)); }')[1]).toBe('Stable/Stable/Common');
    expect(attrs('dtrace:::BEGIN /(uint64_t)&`vfs_read/ { }')[1]).toBe('Private/Private/Unknown');
    expect(attrs('dtrace:::BEGIN { trace(htons(1)); }')[1]).toBe('Evolving/Evolving/Common');
  });

  it('prints the report as dtrace(1) does', () => {
    const c = compile([{ kind: 'n', text: 'dtrace:::BEGIN { exit(0); }', name: 'dtrace:::BEGIN { exit(0); }' }],
      { registry, options: new Map(), macroArgs: [], zdefs: true });
    expect(c.stabilityReports(true)[0]).toBe(
      '\nStability attributes for description dtrace:::BEGIN :\n' +
      '\n\tMinimum Probe Description Attributes\n\t\tIdentifier Names: Stable\n\t\tData Semantics:   Stable\n\t\tDependency Class: Common\n' +
      '\n\tMinimum Statement Attributes\n\t\tIdentifier Names: Stable\n\t\tData Semantics:   Stable\n\t\tDependency Class: Common\n\n');
    expect(c.stabilityReports(false)[0]).toContain('\ndtrace:::BEGIN\n\n\tProbe Description Attributes\n');
  });
});
