// A textual listing of eBPF instructions, for reading what the translator emits
// (DTRACE_DEBUG_BPF=1 prints every program it loads to stderr).

import { ALU, BPF_ALU, BPF_ALU64, BPF_JMP, BPF_JMP32, BPF_LD, BPF_LDX, BPF_ST, BPF_STX, BPF_X, HELPER, JMP } from './bpf-asm.js';

const ALU_NAME = new Map<number, string>(Object.entries(ALU).map(([k, v]) => [v, k.toLowerCase()]));
const JMP_NAME = new Map<number, string>(Object.entries(JMP).map(([k, v]) => [v, k.toLowerCase()]));
const HELPER_NAME = new Map<number, string>(Object.entries(HELPER).map(([k, v]) => [v, k]));
const SIZE_NAME: Record<number, string> = { 0x00: 'u32', 0x08: 'u16', 0x10: 'u8', 0x18: 'u64' };

const reg = (r: number) => (r === 10 ? 'fp' : `r${r}`);
const mem = (r: number, off: number) => `[${reg(r)}${off < 0 ? off : `+${off}`}]`;

/** One line per instruction: "pc: text" (a 16-byte load takes two slots and one line). */
export function disassemble(insns: Buffer): string[] {
  const out: string[] = [];
  for (let pc = 0; pc < insns.length / 8; pc++) {
    out.push(`${pc}: ${describe(insns, pc)}`);
    if ((insns.readUInt8(pc * 8) & 0x07) === BPF_LD) pc++;
  }
  return out;
}

/**
 * -S's listing, laid out as DTrace for Linux lays its own: per slot its index, byte offset, the
 * opcode, registers, offset and immediate in hex, then the instruction (its second slot blank).
 */
export function listing(insns: Buffer): string[] {
  const out: string[] = [];
  const hex = (n: number, w: number) => n.toString(16).padStart(w, '0');
  let second = false; // the slot after a 16-byte load's first
  for (let pc = 0; pc < insns.length / 8; pc++) {
    const at = pc * 8;
    const code = insns.readUInt8(at), regs = insns.readUInt8(at + 1);
    const fields = `${hex(code, 2)} ${hex(regs & 0xf, 1)} ${hex(regs >> 4, 1)} ${hex(insns.readUInt16LE(at + 2), 4)} ${hex(insns.readUInt32LE(at + 4), 8)}`;
    out.push(`${String(pc).padStart(4, '0')} ${String(at).padStart(5, '0')}: ${fields}    ${second ? '' : describe(insns, pc)}`.trimEnd());
    second = !second && (code & 0x07) === BPF_LD;
  }
  return out;
}

/** The instruction at slot `pc`, as text. */
function describe(insns: Buffer, pc: number): string {
  const at = pc * 8;
  const code = insns.readUInt8(at);
  const dst = insns.readUInt8(at + 1) & 0xf, src = insns.readUInt8(at + 1) >> 4;
  const off = insns.readInt16LE(at + 2), imm = insns.readInt32LE(at + 4);
  const cls = code & 0x07, size = SIZE_NAME[code & 0x18];
  const operand = code & BPF_X ? reg(src) : String(imm);
  let text: string;
  switch (cls) {
    case BPF_LD: {
      const hi = at + 12 < insns.length ? insns.readUInt32LE(at + 12) : 0;
      const value = (BigInt(hi) << 32n) | BigInt(imm >>> 0);
      return src === 1 ? `${reg(dst)} = map_fd(${imm})` : src === 2 ? `${reg(dst)} = map_value(fd ${imm}) + ${hi}` : `${reg(dst)} = 0x${value.toString(16)} ll`;
    }
    case BPF_LDX: text = `${reg(dst)} = *(${size} *)${mem(src, off)}`; break;
    case BPF_ST: text = `*(${size} *)${mem(dst, off)} = ${imm}`; break;
    case BPF_STX: text = `*(${size} *)${mem(dst, off)} = ${reg(src)}`; break;
    case BPF_ALU:
    case BPF_ALU64: {
      const w = cls === BPF_ALU ? 'w' : 'r';
      const op = code & 0xf0;
      if (op === ALU.NEG) text = `${w}${dst} = -${w}${dst}`;
      else if (op === ALU.MOV && off) text = `${reg(dst)} = (s${off})${reg(src)}`;
      else text = `${w}${dst} ${ALU_NAME.get(op) ?? op} ${operand}${off ? ' (signed)' : ''}`;
      break;
    }
    case BPF_JMP:
    case BPF_JMP32: {
      const op = code & 0xf0;
      if (op === JMP.CALL) text = `call ${HELPER_NAME.get(imm) ?? imm}`;
      else if (op === JMP.EXIT) text = 'exit';
      else if (op === JMP.JA) text = code === (BPF_JMP32 | JMP.JA) ? `gotol ${pc + 1 + imm}` : `goto ${pc + 1 + off}`;
      else text = `if ${reg(dst)} ${JMP_NAME.get(op) ?? op} ${operand} goto ${pc + 1 + off}`;
      break;
    }
    default: text = `?? 0x${code.toString(16)}`;
  }
  return text;
}
