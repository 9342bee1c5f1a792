// curcpu as a cpuinfo_t pointer: the D library's layout, the code generator's loads through it
// (run on the reference machine over the table the Linux bridge builds), and the bridge's choice
// between the `cpu` fast path and the table.

import { existsSync, readFileSync } from 'node:fs';
import { machine } from 'node:os';
import { describe, expect, test } from 'vitest';
import { compile } from '../../src/compiler/compile.js';
import { DifMachine } from '../../src/dif/machine.js';
import type { Program } from '../../src/dof/program.js';
import { CPUINFO_SIZE, cpuinfoTable, usesCpuinfo } from '../../src/device/linux/cpuinfo.js';
import { ProbeRegistry } from '../../src/providers/registry.js';

function compileD(text: string, options = new Map<string, string>()): Program {
  return compile([{ kind: 'n', text, name: text }], { registry: new ProbeRegistry(), options, macroArgs: [], zdefs: true }).program;
}

/** Run a BEGIN clause on the reference machine with curcpu pointing at CPU `cpu` of `table`. */
function fire(text: string, table: Buffer, cpu: number): (bigint | string)[] {
  const base = 0xffff_9000_0000_0000n;
  const m = new DifMachine();
  m.memory.map(base, new Uint8Array(table), 'kernel');
  m.newFiring();
  const out: (bigint | string)[] = [];
  for (const ecb of compileD(text).ecbs) {
    const r = m.runClause(ecb, { curcpu: base + BigInt(cpu * CPUINFO_SIZE) });
    if (r.fault) throw r.fault.fault;
    ecb.actions.forEach((a, n) => {
      const v = r.actions[n];
      if (a.difo && v && a.difo.rtype.size > 0) out.push(v.string ?? BigInt.asIntN(a.difo.rtype.size * 8, v.value));
    });
  }
  return out;
}

const table = cpuinfoTable(2, [0, 1]);

describe('cpuinfo_t', () => {
  test('the library declares it as DTrace documents it', () => {
    const t = 'BEGIN { trace(sizeof (cpuinfo_t)); trace(offsetof(cpuinfo_t, cpu_info)); ' +
      'trace(offsetof(processor_info_t, pi_processor_type)); trace(offsetof(processor_info_t, pi_fputypes)); ' +
      'trace(offsetof(processor_info_t, pi_clock)); trace(sizeof (curcpu->cpu_pset)); }';
    expect(fire(t, table, 0)).toEqual([72n, 16n, 4n, 20n, 52n, 4n]);
    expect(CPUINFO_SIZE).toBe(72);
  });

  test('curcpu, cpu, chip and lgrp read the table the bridge builds', () => {
    const chip1 = Number(readFileSync('/sys/devices/system/cpu/cpu1/topology/physical_package_id', 'utf8'));
    const d = 'BEGIN { trace(curcpu->cpu_id); trace(cpu); trace(chip); trace(lgrp); trace(curcpu->cpu_pset); ' +
      'trace(curcpu->cpu_info.pi_state == P_ONLINE); trace(stringof(curcpu->cpu_info.pi_processor_type)); }';
    expect(fire(d, table, 1)).toEqual([1n, 1n, BigInt(chip1), 0n, 0n, 1n, machine()]);
    expect(fire('BEGIN { trace(curcpu->cpu_id); trace(cpu); }', table, 0)).toEqual([0n, 0n]);
  });

  test('pi_clock is the MHz cpufreq or /proc/cpuinfo gives', () => {
    const max = '/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq';
    const mhz = /^cpu MHz\s*:\s*([\d.]+)/m.exec(readFileSync('/proc/cpuinfo', 'utf8'));
    const want = existsSync(max) ? Math.round(Number(readFileSync(max, 'utf8')) / 1000) : mhz ? Math.round(Number(mhz[1])) : 0;
    expect(fire('BEGIN { trace(curcpu->cpu_info.pi_clock); }', table, 0)).toEqual([BigInt(want)]);
  });

  test('a CPU that is not on-line is P_OFFLINE', () => {
    expect(fire('BEGIN { trace(curcpu->cpu_info.pi_state); }', cpuinfoTable(2, [0]), 1)).toEqual([1n]);
  });
});

describe('the Linux bridge', () => {
  const difos = (p: Program) => p.ecbs.flatMap((e) => [e.predicate, ...e.actions.map((a) => a.difo)]).filter((d) => d !== null);

  test('cpu alone needs no table; curcpu, chip and lgrp do', () => {
    expect(difos(compileD('BEGIN { trace(cpu); @[cpu] = count(); }')).some(usesCpuinfo)).toBe(false);
    for (const d of ['BEGIN { trace(curcpu->cpu_id); }', 'BEGIN { trace(chip); }', 'BEGIN { trace(lgrp); }', 'BEGIN { trace(curcpu); }'])
      expect(difos(compileD(d)).some(usesCpuinfo), d).toBe(true);
  });
});

describe('the compiler', () => {
  const error = (d: string, options?: Map<string, string>) => {
    try {
      compileD(d, options);
    } catch (e) {
      return (e as Error).message;
    }
    return undefined;
  };

  test('pset stays unsupported; chip and lgrp are not writable', () => {
    expect(error('BEGIN { trace(pset); }')).toContain('failed to resolve pset: built-in variable not supported on this system (Linux has no processor sets)');
    expect(error('BEGIN { chip = 1; }')).toContain('operator = can only be applied to a writable variable');
    expect(error('BEGIN { lgrp++; }')).toContain('operator ++ can only be applied to a writable variable');
  });

  test('curcpu needs the D library for its type', () => {
    expect(error('BEGIN { trace(curcpu->cpu_id); }')).toBeUndefined();
    expect(error('BEGIN { trace(curcpu->cpu_id); }', new Map([['nolibs', '']]))).toContain('pointer to type "void"');
  });
});
