// The length of an x86-64 instruction, for the pid provider's instruction-offset probes: every
// instruction of a function is a probe (pid123:a.out:main:1c), so the function's bytes are
// walked instruction by instruction. Only lengths are decoded -- prefixes, REX, VEX/EVEX, the
// opcode map, ModRM/SIB, displacement and immediate -- following the Intel SDM's encoding tables
// (volume 2, chapter 2 and appendix A).

/** One-byte opcodes followed by a ModRM byte (bit per opcode). */
const MODRM1 = bits([
  [0x00, 0x03], [0x08, 0x0b], [0x10, 0x13], [0x18, 0x1b], [0x20, 0x23], [0x28, 0x2b], [0x30, 0x33], [0x38, 0x3b],
  [0x63, 0x63], [0x69, 0x69], [0x6b, 0x6b], [0x80, 0x8f], [0xc0, 0xc1], [0xc6, 0xc7], [0xd0, 0xd3], [0xd8, 0xdf],
  [0xf6, 0xf7], [0xfe, 0xff],
]);

/** Two-byte (0F xx) opcodes with no ModRM byte. */
const NO_MODRM2 = bits([
  [0x05, 0x09], [0x0b, 0x0b], [0x0e, 0x0e], [0x30, 0x37], [0x77, 0x77], [0x80, 0x8f], [0xa0, 0xa2], [0xa8, 0xaa],
  [0xc8, 0xcf],
]);

/** One-byte opcodes with an 8-bit immediate (or rel8). */
const IMM8_1 = bits([
  [0x04, 0x04], [0x0c, 0x0c], [0x14, 0x14], [0x1c, 0x1c], [0x24, 0x24], [0x2c, 0x2c], [0x34, 0x34], [0x3c, 0x3c],
  [0x6a, 0x6a], [0x6b, 0x6b], [0x70, 0x7f], [0x80, 0x80], [0x82, 0x83], [0xa8, 0xa8], [0xb0, 0xb7], [0xc0, 0xc1],
  [0xc6, 0xc6], [0xcd, 0xcd], [0xd4, 0xd5], [0xe0, 0xe7], [0xeb, 0xeb],
]);

/** One-byte opcodes with a 16- or 32-bit immediate (by the operand size; rel32 included). */
const IMMZ_1 = bits([
  [0x05, 0x05], [0x0d, 0x0d], [0x15, 0x15], [0x1d, 0x1d], [0x25, 0x25], [0x2d, 0x2d], [0x35, 0x35], [0x3d, 0x3d],
  [0x68, 0x69], [0x81, 0x81], [0xa9, 0xa9], [0xc7, 0xc7], [0xe8, 0xe9],
]);

/** 0F xx opcodes with an 8-bit immediate. */
const IMM8_2 = bits([[0x70, 0x73], [0xa4, 0xa4], [0xac, 0xac], [0xba, 0xba], [0xc2, 0xc2], [0xc4, 0xc6]]);

function bits(ranges: [number, number][]): Uint8Array {
  const t = new Uint8Array(256);
  for (const [lo, hi] of ranges) for (let i = lo; i <= hi; i++) t[i] = 1;
  return t;
}

const LEGACY_PREFIXES = new Set([0x66, 0x67, 0xf0, 0xf2, 0xf3, 0x2e, 0x36, 0x3e, 0x26, 0x64, 0x65]);

/** The length of the instruction at `at` in `code`, or null when it cannot be decoded. */
export function instructionLength(code: Uint8Array, at: number): number | null {
  let p = at;
  const end = Math.min(code.length, at + 15);
  const byte = () => (p < end ? code[p++] : -1);
  let opsize16 = false, addr32 = false;
  let b = byte();
  while (LEGACY_PREFIXES.has(b)) {
    if (b === 0x66) opsize16 = true;
    if (b === 0x67) addr32 = true;
    b = byte();
  }
  let rexW = false;
  if (b >= 0x40 && b <= 0x4f) {
    rexW = (b & 8) !== 0;
    b = byte();
  }
  let map = 0; // 0 one-byte, 1 0F, 2 0F38, 3 0F3A
  let op: number;
  let vex = false;
  if (b === 0xc5) {
    if (byte() < 0) return null;
    map = 1, vex = true;
    op = byte();
  } else if (b === 0xc4) {
    const m = byte() & 0x1f;
    if (byte() < 0) return null;
    map = m, vex = true;
    op = byte();
  } else if (b === 0x62) {
    const p0 = byte();
    if (byte() < 0 || byte() < 0) return null;
    map = p0 & 7, vex = true;
    op = byte();
  } else if (b === 0x0f) {
    const b2 = byte();
    if (b2 === 0x38) map = 2, op = byte();
    else if (b2 === 0x3a) map = 3, op = byte();
    else map = 1, op = b2;
  } else {
    op = b;
  }
  if (op < 0) return null;
  // ModRM, SIB and displacement.
  // VEX's vzeroupper/vzeroall (0F 77) alone have none.
  const hasModrm = vex ? !(map === 1 && op === 0x77) : map >= 2 || (map === 1 ? !NO_MODRM2[op] : MODRM1[op] === 1);
  let reg = 0;
  if (hasModrm) {
    const modrm = byte();
    if (modrm < 0) return null;
    const mod = modrm >> 6, rm = modrm & 7;
    reg = (modrm >> 3) & 7;
    if (mod !== 3) {
      let disp = mod === 1 ? 1 : mod === 2 ? 4 : 0;
      if (rm === 4) {
        const sib = byte();
        if (sib < 0) return null;
        if (mod === 0 && (sib & 7) === 5) disp = 4;
      } else if (mod === 0 && rm === 5) {
        disp = 4; // RIP-relative
      }
      p += disp;
    }
  }
  // Immediate.
  const z = opsize16 ? 2 : 4;
  let imm = 0;
  if (vex) {
    imm = map === 3 || (map === 1 && IMM8_2[op]) ? 1 : 0;
  } else if (map === 3) {
    imm = 1;
  } else if (map === 1) {
    if (IMM8_2[op]) imm = 1;
    else if (op >= 0x80 && op <= 0x8f) imm = z;
  } else if (map === 0) {
    if (IMM8_1[op]) imm = 1;
    else if (IMMZ_1[op]) imm = z;
    else if (op >= 0xb8 && op <= 0xbf) imm = rexW ? 8 : z;
    else if (op >= 0xa0 && op <= 0xa3) imm = addr32 ? 4 : 8; // moffs
    else if (op === 0xc2 || op === 0xca) imm = 2;
    else if (op === 0xc8) imm = 3;
    else if (op === 0xf6 && reg <= 1) imm = 1;
    else if (op === 0xf7 && reg <= 1) imm = z;
  }
  p += imm;
  return p <= at + 15 && p <= code.length ? p - at : null;
}

/** The offsets of every instruction in `code` from its start; stops where decoding fails. */
export function instructionOffsets(code: Uint8Array): number[] {
  const out: number[] = [];
  for (let at = 0; at < code.length; ) {
    const n = instructionLength(code, at);
    if (n === null) break;
    out.push(at);
    at += n;
  }
  return out;
}
