// curcpu on the real kernel: under -x cpu=N, every online CPU's cpuinfo_t holds the facts sysfs
// and /proc/cpuinfo give for CPU N (the clock: cpufreq's maximum, else /proc/cpuinfo's MHz).
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { machine } from 'node:os';
import { describe, expect, test } from 'vitest';
import { dtrace, kernelUnavailable } from '../helpers/run.js';

const skip = kernelUnavailable();

function online(): number[] {
  const out: number[] = [];
  for (const part of readFileSync('/sys/devices/system/cpu/online', 'utf8').trim().split(',')) {
    const [lo, hi] = part.split('-').map(Number);
    for (let c = lo; c <= (hi ?? lo); c++) out.push(c);
  }
  return out;
}

function sysfs(cpu: number): { chip: number; node: number; mhz: number | undefined } {
  const dir = `/sys/devices/system/cpu/cpu${cpu}`;
  const max = `${dir}/cpufreq/cpuinfo_max_freq`;
  const chip = Number(readFileSync(`${dir}/topology/physical_package_id`, 'utf8'));
  const node = readdirSync(dir).map((n) => /^node(\d+)$/.exec(n)).find((m) => m)?.[1];
  const block = readFileSync('/proc/cpuinfo', 'utf8').split(/\n\s*\n/).find((b) => new RegExp(`^processor\\s*:\\s*${cpu}$`, 'm').test(b));
  const mhz = block && /^cpu MHz\s*:\s*([\d.]+)/m.exec(block);
  const clock = existsSync(max) ? Math.round(Number(readFileSync(max, 'utf8')) / 1000) : mhz ? Math.round(Number(mhz[1])) : undefined;
  return { chip, node: node === undefined ? 0 : Number(node), mhz: clock };
}

describe.skipIf(skip)(`curcpu${skip ? ` (skipped: ${skip})` : ''}`, () => {
  test.each(online())('CPU %i: cpu_id, chip, lgrp, pi_clock and pi_processor_type are this machine\'s', (cpu) => {
    const d = 'BEGIN { printf("%d %d %d %d %d %s\\n", curcpu->cpu_id, cpu, chip, lgrp, curcpu->cpu_info.pi_clock, ' +
      'stringof(curcpu->cpu_info.pi_processor_type)); exit(0); }';
    const r = dtrace(['-q', '-x', `cpu=${cpu}`, '-n', d]);
    expect(r.status, r.stderr).toBe(0);
    const [id, c, chip, lgrp, clock, type] = r.stdout.trim().split(' ');
    const want = sysfs(cpu);
    expect([Number(id), Number(c), Number(chip), Number(lgrp), type]).toEqual([cpu, cpu, want.chip, want.node, machine()]);
    expect(Number(clock)).toBe(want.mhz ?? 0);
  });
});
