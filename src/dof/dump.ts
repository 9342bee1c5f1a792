// A readable dump of DOF, for people: what `dtrace-dofdump` prints (named after mdb's ::dofdump,
// the command illumos users run to look inside DOF).
//
// The dump has three parts: the header (as mdb's ::dof_hdr prints its fields), the section table
// (as ::dof_sec prints it), then the decoded program -- each ECB's probe description, predicate and
// actions, every DIF object disassembled as `dtrace -S` shows it, and the options. The DOF is
// validated by the reader first, so a malformed file ends in the reader's "DOF: ..." error.

import { readDof } from './reader.js';
import { DOF_HDR_SIZE, DOF_SEC_SIZE, sectionTypeName } from './constants.js';
import { DTRACEACT_NAMES, isAggregatingAction } from '../dif/constants.js';
import { disassembleDifo } from '../dif/disasm.js';
import { probeDescriptionString, type ActionDescription, type Program, type UsdtProvider } from './program.js';
import type { Attribute } from '../abi/stability.js';

const hex = (v: bigint | number): string => `0x${v.toString(16)}`;

function headerLines(buf: Buffer): string[] {
  const id = (k: number) => buf[k]!;
  const model = id(4) === 1 ? 'ILP32' : id(4) === 2 ? 'LP64' : hex(id(4));
  const encoding = id(5) === 1 ? 'LSB' : id(5) === 2 ? 'MSB' : hex(id(5));
  return [
    `dofh_ident.id_magic = 0x${id(0).toString(16)}, ${String.fromCharCode(id(1), id(2), id(3)).split('').join(', ')}`,
    `dofh_ident.id_model = ${model}`,
    `dofh_ident.id_encoding = ${encoding}`,
    `dofh_ident.id_version = ${id(6)}`,
    `dofh_ident.id_difvers = ${id(7)}`,
    `dofh_ident.id_difireg = ${id(8)}`,
    `dofh_ident.id_diftreg = ${id(9)}`,
    `dofh_flags = ${hex(buf.readUInt32LE(16))}`,
    `dofh_hdrsize = ${buf.readUInt32LE(20)}`,
    `dofh_secsize = ${buf.readUInt32LE(24)}`,
    `dofh_secnum = ${buf.readUInt32LE(28)}`,
    `dofh_secoff = ${buf.readBigUInt64LE(32)}`,
    `dofh_loadsz = ${buf.readBigUInt64LE(40)}`,
    `dofh_filesz = ${buf.readBigUInt64LE(48)}`,
  ];
}

function sectionLines(buf: Buffer): string[] {
  const secnum = buf.readUInt32LE(28);
  const secoff = Number(buf.readBigUInt64LE(32));
  const secsize = buf.readUInt32LE(24) || DOF_SEC_SIZE;
  const lines = [`${'NDX'.padEnd(3)} ${'TYPE'.padEnd(12)} ${'ALIGN'.padEnd(5)} ${'FLAGS'.padEnd(5)} ${'ENTSZ'.padEnd(5)} ${'OFFSET'.padEnd(6)} SIZE`];
  for (let i = 0; i < secnum; i++) {
    const h = secoff + i * secsize;
    const type = buf.readUInt32LE(h);
    lines.push(
      `${String(i).padStart(3)} ${sectionTypeName(type).padEnd(12)} ${String(buf.readUInt32LE(h + 4)).padEnd(5)} ` +
        `${hex(buf.readUInt32LE(h + 8)).padEnd(5)} ${hex(buf.readUInt32LE(h + 12)).padEnd(5)} ` +
        `${buf.readBigUInt64LE(h + 16).toString(16).padEnd(6)} ${hex(buf.readBigUInt64LE(h + 24))}`,
    );
  }
  return lines;
}

function actionName(kind: number): string {
  return DTRACEACT_NAMES.get(kind) ?? `action ${hex(kind)}`;
}

function actionLines(a: ActionDescription, k: number): string[] {
  const lines = [`  action ${k}: ${actionName(a.kind)} (kind ${hex(a.kind)})`];
  lines.push(`    ntuple = ${a.ntuple}, arg = ${hex(a.arg)}, uarg = ${hex(a.uarg)}`);
  if (a.format !== undefined) lines.push(`    format = ${JSON.stringify(a.format)}`);
  if (isAggregatingAction(a.kind) || a.aggName !== undefined) lines.push(`    aggregation = @${a.aggName ?? ''}`);
  if (a.difo) lines.push(...indent(disassembleDifo(a.difo, `(action ${k})`), '    '));
  return lines;
}

/** A USDT provider: its attributes, then each probe with its arguments and sites. */
function providerLines(p: UsdtProvider): string[] {
  const attr = (a: Attribute) => `${a.name}/${a.data}/${a.dependency}`;
  const a = p.attributes;
  const lines = [
    `PROVIDER ${p.name}`,
    `  attributes: provider ${attr(a.provider)}, module ${attr(a.module)}, function ${attr(a.function)}, name ${attr(a.name)}, args ${attr(a.args)}`,
  ];
  for (const pr of p.probes) {
    lines.push(`  probe ${pr.name} in ${pr.func} (addr ${hex(pr.addr)})`);
    lines.push(`    native (${pr.nativeTypes.join(', ')}), translated (${pr.translatedTypes.join(', ')}), mapping [${pr.argMap.join(', ')}]`);
    lines.push(`    offsets [${pr.offsets.map(hex).join(', ')}], is-enabled offsets [${pr.enabledOffsets.map(hex).join(', ')}]`);
  }
  return lines;
}

function indent(text: string, by: string): string[] {
  return text.replace(/\n$/, '').split('\n').map((l) => (l === '' ? '' : by + l));
}

/** The decoded program part of the dump. */
export function dumpProgram(p: Program): string {
  const lines: string[] = [];
  p.ecbs.forEach((e, i) => {
    lines.push(`ECB ${i}: ${probeDescriptionString(e.probe)}${e.probe.id ? ` (probe id ${e.probe.id})` : ''}`);
    lines.push(`  uarg = ${hex(e.uarg)}`);
    if (e.predicate) {
      lines.push('  predicate:');
      lines.push(...indent(disassembleDifo(e.predicate, '(predicate)'), '    '));
    }
    if (e.actions.length === 0) lines.push('  (no actions)');
    e.actions.forEach((a, k) => lines.push(...actionLines(a, k)));
    lines.push('');
  });
  if (p.options.size > 0) {
    lines.push('OPTIONS');
    for (const [k, v] of p.options) lines.push(`  ${k} = ${v}`);
    lines.push('');
  }
  for (const pv of p.providers ?? []) lines.push(...providerLines(pv), '');
  return lines.join('\n');
}

/** The whole dump of a DOF file. Throws the reader's "DOF: ..." Error when the DOF is malformed. */
export function dumpDof(buf: Buffer): string {
  const program = readDof(buf);
  if (buf.length < DOF_HDR_SIZE) throw new Error('DOF: file is shorter than a DOF header');
  return [...headerLines(buf), '', ...sectionLines(buf), '', dumpProgram(program)].join('\n');
}
