import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { BpfAsm } from '../../src/device/linux/bpf-asm.js';
import { emitUserArg, PT_REGS, refCtrShift, uprobeEvents, uprobePmuType } from '../../src/device/linux/uprobe.js';
import type { MemLayout } from '../../src/device/linux/translate.js';

const PMU = '/sys/bus/event_source/devices/uprobe';

describe('uprobe events', () => {
  test('the reference counter offset goes where the PMU format says', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'dtrace-uprobe-'));
    writeFileSync(path.join(dir, 'ref_ctr_offset'), 'config:32-63\n');
    expect(refCtrShift(path.join(dir, 'ref_ctr_offset'))).toBe(32n);
    writeFileSync(path.join(dir, 'bad'), 'config1:0-63\n');
    expect(() => refCtrShift(path.join(dir, 'bad'))).toThrow(/unexpected/);
  });

  test('one event on the process, or one per CPU without one', (ctx) => {
    if (!existsSync(PMU)) ctx.skip('the kernel has no uprobe PMU');
    const type = uprobePmuType();
    const shift = refCtrShift();
    const at = { kind: 'uprobe' as const, path: '/bin/true', offset: 0x1234, retprobe: true, pid: 42, refCtrOffset: 0x10 };
    expect(uprobeEvents(at, [0, 1])).toEqual([
      { type, config: 0x10n << shift, uprobePath: '/bin/true', probeOffset: 0x1234, retprobe: true, samplePeriod: 1, pid: 42, cpu: -1 },
    ]);
    const all = uprobeEvents({ ...at, pid: undefined, refCtrOffset: undefined }, [0, 1]);
    expect(all.map((o) => [o.pid, o.cpu, o.config])).toEqual([[-1, 0, 0n], [-1, 1, 0n]]);
  });
});

describe('user argument loads', () => {
  const mem = { args: 64 } as MemLayout;
  const decode = (b: Buffer) => Array.from({ length: b.length / 8 }, (_, i) => ({
    code: b[i * 8], dst: b[i * 8 + 1] & 0xf, src: b[i * 8 + 1] >> 4, off: b.readInt16LE(i * 8 + 2), imm: b.readInt32LE(i * 8 + 4),
  }));

  test('a register is loaded from its pt_regs slot and sign-extended', () => {
    const a = new BpfAsm();
    emitUserArg(a, mem, 2, { kind: 'register', reg: 'rax', size: 4, signed: true });
    const insns = decode(a.finish());
    expect(insns[0]).toMatchObject({ code: 0x79, dst: 0, src: 9, off: PT_REGS.rax }); // r0 = *(u64 *)(r9 + 80)
    expect(insns[1]).toMatchObject({ code: 0xbf, dst: 0, src: 0, off: 32 }); // movsx r0, (s32)r0
    expect(insns[2]).toMatchObject({ code: 0x7b, dst: 8, src: 0, off: 64 + 16 }); // args[2] = r0
  });

  test('memory is read with bpf_probe_read_user from register + disp', () => {
    const a = new BpfAsm();
    emitUserArg(a, mem, 0, { kind: 'memory', reg: 'rbp', disp: -16, size: 8, signed: false });
    const insns = decode(a.finish());
    expect(insns.find((i) => i.code === 0x79)).toMatchObject({ dst: 3, src: 9, off: PT_REGS.rbp });
    expect(insns.find((i) => i.code === 0x07 && i.dst === 3)).toMatchObject({ imm: -16 });
    expect(insns.find((i) => i.code === 0x85)).toMatchObject({ imm: 112 }); // probe_read_user
  });
});
