// setopt() records: two DTRACEACT_LIBACT records with arg DT_ACT_SETOPT, the option's name and
// its value (compiler/setopt.ts). As dt_consume_cpu reads them, a value record that is not a
// string (the constant 0 of a setopt() without a value) stands for "1".

import * as D from '../dif/constants.js';
import type { EnabledProbe, RecordDescription } from '../device/device.js';
import { decode } from './decode.js';

export function isSetoptRecord(r: RecordDescription): boolean {
  return r.action === D.DTRACEACT_LIBACT && r.arg === BigInt(D.DT_ACT_SETOPT);
}

/** The option and value of the setopt() records starting at recs[i], and how many records they are. */
export function setoptArgs(recs: RecordDescription[], i: number, data: Buffer): { option: string; value: string; consumed: number } {
  const text = (r: RecordDescription) => {
    const v = r.type === 'string' ? decode(r, data) : null;
    return v?.kind === 'string' ? v.value : null;
  };
  const next = recs[i + 1];
  const paired = next !== undefined && isSetoptRecord(next);
  return { option: text(recs[i]) ?? '', value: (paired ? text(next) : null) ?? '1', consumed: paired ? 2 : 1 };
}

/** dtrace(1)'s report of a failed setopt(): libdtrace's error on the enabled probe (dt_handle_liberr). */
export function setoptError(ep: EnabledProbe, option: string, value: string, reason: string): string {
  const p = ep.probe;
  // The reason ends with a newline of its own, and the error message adds another.
  return `dtrace: error on enabled probe ID ${ep.epid} (ID ${p.id}: ${p.provider}:${p.module}:${p.func}:${p.name}): ` +
    `couldn't set option "${option}" to "${value}": ${reason}\n\n`;
}
