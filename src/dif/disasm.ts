// The DIF disassembler behind `dtrace -S`: the text libdtrace's dt_dis() prints for each DIF object.
//
// Layout (one DIF object):
//
//   <blank line>
//   DIFO <id> returns <type>
//   OFF OPCODE      INSTRUCTION
//   00: 25000001    setx DT_INTEGER[0], %r1          ! 0x2a
//   ...
//   <blank line, then the variable table when there is one>
//   NAME             ID   KND SCP FLAG TYPE
//   x                500  scl glb r/w  D type (integer) (size 8)
//
// DTrace prints the DIF object's address as <id>; we have no address, so the caller names it
// (`title`), and otherwise a stable hex tag derived from the instructions stands in.

import type { DifClause, DifType, Difo } from './difo.js';
import {
  CTF_KIND_NAMES,
  DIF_OP_NAMES,
  DIF_OP_PUSHTV,
  DIF_OP_XLARG,
  DIF_TF_BYREF,
  DIF_TF_BYUREF,
  DIF_TYPE_CTF,
  DIF_TYPE_STRING,
  DIFV_F_MOD,
  DIFV_F_REF,
  DIFV_KIND_ARRAY,
  DIFV_KIND_SCALAR,
  DIFV_SCOPE_GLOBAL,
  DIFV_SCOPE_LOCAL,
  DIFV_SCOPE_THREAD,
} from './constants.js';
import { difIndex, difLabel, difOp, difR1, difR2, difRd, difType } from './builder.js';
import { subrName } from './subroutines.js';

type Operands = (d: Difo, name: string, i: number) => string;

const pad4 = (name: string): string => name.padEnd(4);
const reg = (r: number): string => `%r${r}`;

const logical: Operands = (_d, n, i) => `${pad4(n)} ${reg(difR1(i))}, ${reg(difR2(i))}, ${reg(difRd(i))}`;
const branch: Operands = (_d, n, i) => `${pad4(n)} ${difLabel(i)}`;
const load: Operands = (_d, n, i) => `${pad4(n)} [${reg(difR1(i))}], ${reg(difRd(i))}`;
const store: Operands = (_d, n, i) => `${pad4(n)} ${reg(difR1(i))}, [${reg(difRd(i))}]`;
const bare: Operands = (_d, n) => n;
const r1rd: Operands = (_d, n, i) => `${pad4(n)} ${reg(difR1(i))}, ${reg(difRd(i))}`;
const cmp: Operands = (_d, n, i) => `${pad4(n)} ${reg(difR1(i))}, ${reg(difR2(i))}`;
const tst: Operands = (_d, n, i) => `${pad4(n)} ${reg(difR1(i))}`;
const ret: Operands = (_d, n, i) => `${pad4(n)} ${reg(difRd(i))}`;

/** The scope a variable instruction addresses, from its mnemonic's third letter (ldGs, stTs, ldLs). */
function scopeOf(name: string): number {
  switch (name[2]) {
    case 'l':
      return DIFV_SCOPE_LOCAL;
    case 't':
      return DIFV_SCOPE_THREAD;
    case 'g':
      return DIFV_SCOPE_GLOBAL;
    default:
      return -1;
  }
}

function varNote(d: Difo, id: number, name: string): string {
  const v = d.vartab.find((e) => e.id === id && e.scope === scopeOf(name));
  return v ? `\t\t! DT_VAR(${id}) = "${v.name}"` : '';
}

const lda: Operands = (d, n, i) =>
  `${pad4(n)} DT_VAR(${difR1(i)}), ${reg(difR2(i))}, ${reg(difRd(i))}` + varNote(d, difR1(i), n);
const ldv: Operands = (d, n, i) => `${pad4(n)} DT_VAR(${difIndex(i)}), ${reg(difRd(i))}` + varNote(d, difIndex(i), n);
const stv: Operands = (d, n, i) => `${pad4(n)} ${reg(difRd(i))}, DT_VAR(${difIndex(i)})` + varNote(d, difIndex(i), n);

const setx: Operands = (d, n, i) => {
  const k = difIndex(i);
  const text = `${pad4(n)} DT_INTEGER[${k}], ${reg(difRd(i))}`;
  const v = d.inttab[k];
  return v === undefined ? text : `${text}\t\t! 0x${BigInt.asUintN(64, v).toString(16)}`;
};

const sets: Operands = (d, n, i) => {
  const off = difIndex(i);
  const text = `${pad4(n)} DT_STRING[${off}], ${reg(difRd(i))}`;
  return off < d.strtab.length ? `${text}\t\t! "${cString(d.strtab, off)}"` : text;
};

const call: Operands = (_d, n, i) =>
  `${pad4(n)} DIF_SUBR(${difIndex(i)}), ${reg(difRd(i))}\t\t! ${subrName(difIndex(i))}`;

const TUPLE_TYPE_NAMES = ['D type', 'string'];

const pushts: Operands = (_d, n, i) => {
  const type = difType(i);
  let text: string;
  let gap: string;
  if (difOp(i) === DIF_OP_PUSHTV) {
    text = `${pad4(n)} DT_TYPE(${type}), ${reg(difRd(i))}`;
    gap = '\t\t';
  } else {
    text = `${pad4(n)} DT_TYPE(${type}), ${reg(difR2(i))}, ${reg(difRd(i))}`;
    gap = '\t';
  }
  const tname = TUPLE_TYPE_NAMES[type];
  return tname === undefined ? text : `${text}${gap}! DT_TYPE(${type}) = ${tname}`;
};

// Translator references are resolved by the compiler; a DIF object carries no table of them.
const xlate: Operands = (_d, n, i) => `${pad4(n)} DT_XLREF[${difIndex(i)}], ${reg(difRd(i))}`;

/** How to print each opcode's operands, indexed by opcode. */
const OPERANDS: readonly Operands[] = [
  bare, // 0: illegal
  logical, logical, logical, logical, logical, logical, logical, logical, // or..mul
  logical, logical, logical, logical, // sdiv, udiv, srem, urem
  r1rd, r1rd, // not, mov
  cmp, tst, // cmp, tst
  branch, branch, branch, branch, branch, branch, branch, branch, branch, branch, branch, // ba..bleu
  load, load, load, load, load, load, load, // ldsb..ldx
  ret, bare, setx, sets, cmp, // ret, nop, setx, sets, scmp
  lda, ldv, stv, lda, ldv, stv, // ldga, ldgs, stgs, ldta, ldts, stts
  logical, call, pushts, pushts, bare, bare, // sra, call, pushtr, pushtv, popts, flushts
  ldv, ldv, stv, stv, ldv, stv, // ldgaa, ldtaa, stgaa, sttaa, ldls, stls
  r1rd, logical, // allocs, copys
  store, store, store, store, // stb, sth, stw, stx
  load, load, load, load, load, load, load, // uldsb..uldx
  load, load, load, load, load, load, load, // rldsb..rldx
  xlate, xlate, // xlate, xlarg
];

/** One instruction's text after the "NN: xxxxxxxx    " prefix. */
export function disassembleInstruction(difo: Difo, instr: number): string {
  const op = difOp(instr);
  if (op === 0 || op > DIF_OP_XLARG) return '(illegal opcode)';
  return OPERANDS[op]!(difo, DIF_OP_NAMES[op]!, instr);
}

/** A DIF type as dt_dis prints it, e.g. "D type (integer) (size 8)" or "string (unknown) by ref (size 256)". */
export function difTypeString(t: DifType): string {
  const kind =
    t.kind === DIF_TYPE_CTF ? 'D type' : t.kind === DIF_TYPE_STRING ? 'string' : `0x${t.kind.toString(16)}`;
  const ckind = CTF_KIND_NAMES[t.ckind] ?? `0x${t.ckind.toString(16)}`;
  if (t.flags & (DIF_TF_BYREF | DIF_TF_BYUREF)) {
    const user = t.flags & DIF_TF_BYUREF ? 'user ' : '';
    return `${kind} (${ckind}) by ${user}ref (size ${t.size})`;
  }
  return `${kind} (${ckind}) (size ${t.size})`;
}

/** The text `dtrace -S` prints for one DIF object. */
export function disassembleDifo(difo: Difo, title?: string): string {
  const lines: string[] = [''];
  lines.push(`DIFO ${title ?? difoTag(difo)} returns ${difTypeString(difo.rtype)}`);
  lines.push(`${'OFF'.padEnd(3)} ${'OPCODE'.padEnd(8)}    INSTRUCTION`);
  difo.insns.forEach((instr, pc) => {
    const off = String(pc).padStart(2, '0');
    const hex = instr.toString(16).padStart(8, '0');
    lines.push(`${off}: ${hex}    ${disassembleInstruction(difo, instr)}`);
  });
  if (difo.vartab.length > 0) {
    lines.push('');
    lines.push(
      `${'NAME'.padEnd(16)} ${'ID'.padEnd(4)} ${'KND'.padEnd(3)} ${'SCP'.padEnd(3)} ${'FLAG'.padEnd(4)} TYPE`,
    );
    for (const v of difo.vartab) {
      const kind = v.kind === DIFV_KIND_ARRAY ? 'arr' : v.kind === DIFV_KIND_SCALAR ? 'scl' : String(v.kind);
      const scope =
        v.scope === DIFV_SCOPE_GLOBAL
          ? 'glb'
          : v.scope === DIFV_SCOPE_THREAD
            ? 'tls'
            : v.scope === DIFV_SCOPE_LOCAL
              ? 'loc'
              : String(v.scope);
      let flags = '';
      const other = v.flags & ~(DIFV_F_REF | DIFV_F_MOD);
      if (other) flags += `/0x${other.toString(16)}`;
      if (v.flags & DIFV_F_REF) flags += '/r';
      if (v.flags & DIFV_F_MOD) flags += '/w';
      lines.push(
        `${v.name.padEnd(16)} ${v.id.toString(16).padEnd(4)} ${kind.padEnd(3)} ${scope.padEnd(3)} ` +
          `${flags.slice(1).padEnd(4)} ${difTypeString(v.type)}`,
      );
    }
  }
  return lines.join('\n') + '\n';
}

/**
 * Every DIF object of a program's clauses in compile order (each clause's predicate, then its
 * actions' DIF objects), as `dtrace -S` prints them while compiling.
 */
export function disassembleClauses(clauses: readonly DifClause[]): string {
  return clauses.map((clause) => disassembleClause(clause)).join('');
}

function disassembleClause(clause: DifClause): string {
  let out = '';
  if (clause.predicate) out += disassembleDifo(clause.predicate);
  for (const a of clause.actions) if (a.difo) out += disassembleDifo(a.difo);
  return out;
}

/** A stable stand-in for the DIF object's address: FNV-1a over its instructions and tables. */
function difoTag(d: Difo): string {
  let h = 0x811c9dc5;
  const mix = (b: number): void => {
    h = Math.imul(h ^ (b & 0xff), 0x01000193) >>> 0;
  };
  for (const w of d.insns) for (let s = 0; s < 32; s += 8) mix(w >>> s);
  for (const b of d.strtab) mix(b);
  for (const v of d.inttab) for (const c of v.toString(16)) mix(c.charCodeAt(0));
  return `0x${h.toString(16)}`;
}

function cString(buf: Buffer, off: number): string {
  const end = buf.indexOf(0, off);
  return buf.toString('utf8', off, end < 0 ? buf.length : end);
}
