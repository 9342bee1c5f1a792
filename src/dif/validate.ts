// The DIF validator: the one check of a DIF object before it runs, as a DTrace kernel makes it.
// The DOF reader applies it to every DIF object it decodes (so the Linux bridge sees only valid
// DIF), and the reference machine to what it is asked to run.

import * as D from './constants.js';
import type { Difo } from './difo.js';
import { difIndex, difLabel, difOp, difR1, difR2, difRd, isBranchOp } from './builder.js';

/**
 * What a DTrace kernel refuses in a DIF object before running it (dtrace_difo_validate): opcodes
 * that do not exist (XLATE and XLARG too: translators are resolved before DIF reaches the
 * kernel), registers out of range or %r0 written, reserved bits set, branches that do not go
 * forward to an instruction, table references out of range, stores to built-in variables,
 * subroutines that do not exist, no ret at the end, and variable table entries of unknown kind
 * or scope. One line per problem, "[pc]: ..." for an instruction; [] when it may run.
 */
export function validateDifo(difo: Difo): string[] {
  const problems: string[] = [];
  const n = difo.insns.length;
  const bad = (pc: number, msg: string): void => void problems.push(`[${pc}]: ${msg}`);
  const reg = (pc: number, r: number): void => {
    if (r >= D.DIF_DIR_NREGS) bad(pc, `invalid register ${r}`);
  };
  for (let pc = 0; pc < n; pc++) {
    const i = difo.insns[pc]!;
    const op = difOp(i), r1 = difR1(i), r2 = difR2(i), rd = difRd(i);
    const writesRd = (): void => {
      reg(pc, rd);
      if (rd === 0) bad(pc, 'cannot write to %r0');
    };
    if (isBranchOp(op)) {
      const label = difLabel(i);
      if (label >= n) bad(pc, `invalid branch target ${label}`);
      else if (label <= pc) bad(pc, `backward branch to ${label}`);
      continue;
    }
    switch (op) {
      case D.DIF_OP_OR: case D.DIF_OP_XOR: case D.DIF_OP_AND: case D.DIF_OP_SLL: case D.DIF_OP_SRL:
      case D.DIF_OP_SRA: case D.DIF_OP_SUB: case D.DIF_OP_ADD: case D.DIF_OP_MUL: case D.DIF_OP_SDIV:
      case D.DIF_OP_UDIV: case D.DIF_OP_SREM: case D.DIF_OP_UREM: case D.DIF_OP_COPYS:
        reg(pc, r1); reg(pc, r2); writesRd();
        break;
      case D.DIF_OP_NOT: case D.DIF_OP_MOV: case D.DIF_OP_ALLOCS:
      case D.DIF_OP_LDSB: case D.DIF_OP_LDSH: case D.DIF_OP_LDSW: case D.DIF_OP_LDUB: case D.DIF_OP_LDUH:
      case D.DIF_OP_LDUW: case D.DIF_OP_LDX: case D.DIF_OP_RLDSB: case D.DIF_OP_RLDSH: case D.DIF_OP_RLDSW:
      case D.DIF_OP_RLDUB: case D.DIF_OP_RLDUH: case D.DIF_OP_RLDUW: case D.DIF_OP_RLDX:
      case D.DIF_OP_ULDSB: case D.DIF_OP_ULDSH: case D.DIF_OP_ULDSW: case D.DIF_OP_ULDUB:
      case D.DIF_OP_ULDUH: case D.DIF_OP_ULDUW: case D.DIF_OP_ULDX:
        reg(pc, r1);
        if (r2 !== 0) bad(pc, 'non-zero reserved bits');
        writesRd();
        break;
      case D.DIF_OP_STB: case D.DIF_OP_STH: case D.DIF_OP_STW: case D.DIF_OP_STX:
        reg(pc, r1); reg(pc, rd);
        if (r2 !== 0) bad(pc, 'non-zero reserved bits');
        if (rd === 0) bad(pc, 'cannot write to 0 address');
        break;
      case D.DIF_OP_CMP: case D.DIF_OP_SCMP:
        reg(pc, r1); reg(pc, r2);
        if (rd !== 0) bad(pc, 'non-zero reserved bits');
        break;
      case D.DIF_OP_TST:
        reg(pc, r1);
        if (r2 !== 0 || rd !== 0) bad(pc, 'non-zero reserved bits');
        break;
      case D.DIF_OP_RET:
        if (r1 !== 0 || r2 !== 0) bad(pc, 'non-zero reserved bits');
        reg(pc, rd);
        break;
      case D.DIF_OP_NOP: case D.DIF_OP_POPTS: case D.DIF_OP_FLUSHTS:
        if (r1 !== 0 || r2 !== 0 || rd !== 0) bad(pc, 'non-zero reserved bits');
        break;
      case D.DIF_OP_SETX:
        if (difIndex(i) >= difo.inttab.length) bad(pc, `invalid integer ref ${difIndex(i)}`);
        writesRd();
        break;
      case D.DIF_OP_SETS:
        if (difIndex(i) >= difo.strtab.length) bad(pc, `invalid string ref ${difIndex(i)}`);
        writesRd();
        break;
      case D.DIF_OP_LDGA: case D.DIF_OP_LDTA:
        if (r1 > D.DIF_VAR_ARRAY_MAX) bad(pc, `invalid array ${r1}`);
        reg(pc, r2); writesRd();
        break;
      case D.DIF_OP_LDGS: case D.DIF_OP_LDTS: case D.DIF_OP_LDLS: case D.DIF_OP_LDGAA: case D.DIF_OP_LDTAA: {
        const v = difIndex(i);
        if (v < D.DIF_VAR_OTHER_MIN || v > D.DIF_VAR_OTHER_MAX) bad(pc, `invalid variable ${v}`);
        writesRd();
        break;
      }
      case D.DIF_OP_STGS: case D.DIF_OP_STTS: case D.DIF_OP_STLS: case D.DIF_OP_STGAA: case D.DIF_OP_STTAA: {
        const v = difIndex(i);
        if (v < D.DIF_VAR_OTHER_UBASE || v > D.DIF_VAR_OTHER_MAX) bad(pc, `invalid variable ${v}`);
        reg(pc, rd);
        break;
      }
      case D.DIF_OP_CALL:
        if (difIndex(i) > D.DIF_SUBR_MAX) bad(pc, `invalid subr ${difIndex(i)}`);
        writesRd();
        break;
      case D.DIF_OP_PUSHTR:
        if (r1 !== D.DIF_TYPE_STRING && r1 !== D.DIF_TYPE_CTF) bad(pc, `invalid ref type ${r1}`);
        reg(pc, r2); reg(pc, rd);
        break;
      case D.DIF_OP_PUSHTV:
        if (r1 !== D.DIF_TYPE_STRING && r1 !== D.DIF_TYPE_CTF) bad(pc, `invalid val type ${r1}`);
        reg(pc, rd);
        break;
      default:
        // Includes XLATE and XLARG: translators are resolved before DIF reaches the kernel, which
        // refuses these opcodes.
        bad(pc, `invalid opcode ${op}`);
    }
  }
  if (n === 0 || difOp(difo.insns[n - 1]!) !== D.DIF_OP_RET) problems.push("expected 'ret' as last DIF instruction");
  difo.vartab.forEach((v, k) => {
    const where = `variable ${k} (${v.name})`;
    if (v.id > D.DIF_VARIABLE_MAX) problems.push(`${where}: id ${v.id} is out of range`);
    if (v.kind !== D.DIFV_KIND_ARRAY && v.kind !== D.DIFV_KIND_SCALAR) problems.push(`${where}: unknown kind ${v.kind}`);
    if (v.scope !== D.DIFV_SCOPE_GLOBAL && v.scope !== D.DIFV_SCOPE_THREAD && v.scope !== D.DIFV_SCOPE_LOCAL) {
      problems.push(`${where}: unknown scope ${v.scope}`);
    }
  });
  return problems;
}
