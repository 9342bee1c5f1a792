// Register allocation for one DIF object, and the comparisons that can be fused with their branch.
//
// DIF registers live in stack slots (translate.ts, DIF_SLOT). The most used ones instead get the
// callee-saved BPF registers r6 and r7 (r8 holds the scratch memory and r9 the context), which
// survive helper calls; code that may itself use r6/r7 (subroutines) runs with them spilled to
// their slots. A CMP or TST whose only consumer is the branch right after it becomes one
// conditional jump instead of storing condition codes to the stack and loading them back.

import * as D from '../../dif/constants.js';
import type { Difo } from '../../dif/difo.js';
import { R6, R7 } from './bpf-asm.js';

/** BPF registers DIF registers may be kept in. */
export const ALLOCATABLE = [R6, R7] as const;

const CONDITIONAL = new Set([
  D.DIF_OP_BE, D.DIF_OP_BNE, D.DIF_OP_BG, D.DIF_OP_BGU, D.DIF_OP_BGE, D.DIF_OP_BGEU,
  D.DIF_OP_BL, D.DIF_OP_BLU, D.DIF_OP_BLE, D.DIF_OP_BLEU,
]);

/** Instructions whose r1 (and r2) field names a source register. */
const READS_R1 = new Set([
  D.DIF_OP_OR, D.DIF_OP_XOR, D.DIF_OP_AND, D.DIF_OP_SLL, D.DIF_OP_SRL, D.DIF_OP_SRA, D.DIF_OP_SUB,
  D.DIF_OP_ADD, D.DIF_OP_MUL, D.DIF_OP_SDIV, D.DIF_OP_UDIV, D.DIF_OP_SREM, D.DIF_OP_UREM,
  D.DIF_OP_CMP, D.DIF_OP_SCMP, D.DIF_OP_NOT, D.DIF_OP_MOV, D.DIF_OP_TST,
  D.DIF_OP_LDSB, D.DIF_OP_LDSH, D.DIF_OP_LDSW, D.DIF_OP_LDUB, D.DIF_OP_LDUH, D.DIF_OP_LDUW, D.DIF_OP_LDX,
  D.DIF_OP_STB, D.DIF_OP_STH, D.DIF_OP_STW, D.DIF_OP_STX, // the value (rd holds the address)
  D.DIF_OP_COPYS, // the source (r2 is the size, a constant to the bridge)
]);
const READS_R2 = new Set([
  D.DIF_OP_OR, D.DIF_OP_XOR, D.DIF_OP_AND, D.DIF_OP_SLL, D.DIF_OP_SRL, D.DIF_OP_SRA, D.DIF_OP_SUB,
  D.DIF_OP_ADD, D.DIF_OP_MUL, D.DIF_OP_SDIV, D.DIF_OP_UDIV, D.DIF_OP_SREM, D.DIF_OP_UREM,
  D.DIF_OP_CMP, D.DIF_OP_SCMP,
]);

/** DIF register -> BPF register for the most used registers of this DIF object (never %r0). */
export function allocateRegisters(difo: Difo): Map<number, number> {
  const uses = new Map<number, number>();
  const count = (r: number) => { if (r !== 0) uses.set(r, (uses.get(r) ?? 0) + 1); };
  for (const ins of difo.insns) {
    const op = (ins >>> 24) & 0xff;
    if (READS_R1.has(op)) count((ins >>> 16) & 0xff);
    if (READS_R2.has(op)) count((ins >>> 8) & 0xff);
    if (!CONDITIONAL.has(op) && op !== D.DIF_OP_BA && op !== D.DIF_OP_CMP && op !== D.DIF_OP_SCMP && op !== D.DIF_OP_TST) count(ins & 0xff);
  }
  const hot = [...uses].filter(([, n]) => n >= 2).sort((x, y) => y[1] - x[1] || x[0] - y[0]);
  return new Map(hot.slice(0, ALLOCATABLE.length).map(([r], i) => [r, ALLOCATABLE[i]]));
}

/**
 * The CMP/TST instructions to fuse with the branch that follows them: only when every
 * conditional branch of the object directly follows the comparison it tests and is not itself a
 * jump target, so no condition code ever outlives its branch.
 */
export function fusedComparisons(difo: Difo): Set<number> {
  const insns = difo.insns;
  const targets = new Set<number>();
  for (const ins of insns) {
    const op = (ins >>> 24) & 0xff;
    if (CONDITIONAL.has(op) || op === D.DIF_OP_BA) targets.add(ins & 0xffffff);
  }
  const fused = new Set<number>();
  for (let pc = 0; pc < insns.length; pc++) {
    if (!CONDITIONAL.has((insns[pc] >>> 24) & 0xff)) continue;
    const prev = pc > 0 ? (insns[pc - 1] >>> 24) & 0xff : -1;
    if (targets.has(pc) || (prev !== D.DIF_OP_CMP && prev !== D.DIF_OP_TST && prev !== D.DIF_OP_SCMP)) return new Set();
    if (prev !== D.DIF_OP_SCMP) fused.add(pc - 1);
  }
  return fused;
}
