// x86-64 instruction lengths (src/sys/x86.ts), on encodings whose lengths the Intel SDM fixes.
import { describe, expect, test } from 'vitest';
import { instructionLength, instructionOffsets } from '../../src/sys/x86.js';

const len = (hex: string) => instructionLength(Buffer.from(hex.replace(/ /g, ''), 'hex'), 0);

describe('x86-64 instruction lengths', () => {
  test('one-byte opcodes, prefixes and REX', () => {
    expect(len('55')).toBe(1); // push %rbp
    expect(len('48 89 e5')).toBe(3); // mov %rsp,%rbp
    expect(len('c3')).toBe(1); // ret
    expect(len('f3 0f 1e fa')).toBe(4); // endbr64
    expect(len('f0 ff 0f')).toBe(3); // lock decl (%rdi)
    expect(len('66 90')).toBe(2); // xchg %ax,%ax
    expect(len('66 2e 0f 1f 84 00 00 00 00 00')).toBe(10); // nopw %cs:0x0(%rax,%rax,1)
  });

  test('ModRM, SIB, displacements and RIP-relative operands', () => {
    expect(len('8b 45 fc')).toBe(3); // mov -0x4(%rbp),%eax: disp8
    expect(len('8b 85 00 01 00 00')).toBe(6); // disp32
    expect(len('8b 04 24')).toBe(3); // mov (%rsp),%eax: SIB
    expect(len('8b 04 25 00 00 00 00')).toBe(7); // SIB with no base: disp32
    expect(len('48 8b 05 00 00 00 00')).toBe(7); // mov 0x0(%rip),%rax
  });

  test('immediates by opcode and operand size', () => {
    expect(len('e8 00 00 00 00')).toBe(5); // call rel32
    expect(len('eb fe')).toBe(2); // jmp rel8
    expect(len('0f 84 00 00 00 00')).toBe(6); // je rel32
    expect(len('48 b8 01 02 03 04 05 06 07 08')).toBe(10); // movabs $imm64,%rax
    expect(len('b8 01 00 00 00')).toBe(5); // mov $1,%eax
    expect(len('66 b8 01 00')).toBe(4); // mov $1,%ax
    expect(len('48 83 ec 10')).toBe(4); // sub $0x10,%rsp
    expect(len('48 81 ec 00 01 00 00')).toBe(7); // sub $0x100,%rsp
    expect(len('f6 c1 01')).toBe(3); // test $1,%cl
    expect(len('f7 c1 01 00 00 00')).toBe(6); // test $1,%ecx
    expect(len('f7 d8')).toBe(2); // neg %eax: no immediate for /3
    expect(len('c2 08 00')).toBe(3); // ret $8
    expect(len('c8 10 00 00')).toBe(4); // enter $0x10,$0
  });

  test('VEX and EVEX encodings', () => {
    expect(len('c5 f8 77')).toBe(3); // vzeroupper
    expect(len('c5 fd 6f 06')).toBe(4); // vmovdqa (%rsi),%ymm0
    expect(len('c4 e3 7d 38 c1 01')).toBe(6); // vinserti128 $1,%xmm1,%ymm0,%ymm0
    expect(len('62 e1 fe 28 6f 06')).toBe(6); // vmovdqu64 (%rsi),%ymm16
    expect(len('62 e1 fe 28 6f 46 01')).toBe(7); // ... 0x20(%rsi),%ymm16: disp8
  });

  test('offsets walk a function; a truncated instruction ends the walk', () => {
    const code = Buffer.from('f30f1efa554889e5897dfc8b45fc01c05dc3', 'hex');
    expect(instructionOffsets(code)).toEqual([0, 4, 5, 8, 11, 14, 16, 17]);
    expect(instructionLength(Buffer.from('48 8b 05 00'.replace(/ /g, ''), 'hex'), 0)).toBeNull();
  });
});
