// Record decoding: a record's values, read by the enabled probe's record descriptions. The drain
// loop, aggregation keys, setopt() records and -x oformat=json all read records this way.

import * as D from '../dif/constants.js';
import type { RecordDescription } from '../device/device.js';
import { countPrintfArgs } from '../abi/printf-format.js';
import type { Value } from './records.js';

/**
 * The arguments of the printf-like record recs[i] (printf, system): the record itself holds the
 * first (none when it is void), the expression records after it the rest. `last` is the index of
 * the last record they took.
 */
export function printfArgs(recs: RecordDescription[], i: number, data: Buffer): { args: Value[]; last: number } {
  const { args, last } = printfArgRecords(recs, i);
  return { args: args.map((r) => decode(r, data)), last };
}

/** The records holding the arguments of the printf-like record recs[i] (printfArgs). */
export function printfArgRecords(recs: RecordDescription[], i: number): { args: RecordDescription[]; last: number } {
  const need = countPrintfArgs(recs[i].format ?? '');
  const args: RecordDescription[] = [];
  if (recs[i].size > 0 && need > 0) args.push(recs[i]);
  while (args.length < need && i + 1 < recs.length && recs[i + 1].action === D.DTRACEACT_DIFEXPR) args.push(recs[++i]);
  return { args, last: i };
}

/** One record's value, read by its description. */
export function decode(r: RecordDescription, data: Buffer): Value {
  const at = r.offset;
  if (r.type === 'string') {
    const bytes = data.subarray(at, at + r.size);
    const nul = bytes.indexOf(0);
    return { kind: 'string', value: bytes.subarray(0, nul < 0 ? bytes.length : nul).toString('utf8') };
  }
  if (r.type === 'bytes') return { kind: 'bytes', value: Buffer.from(data.subarray(at, at + r.size)) };
  const size = r.size as 1 | 2 | 4 | 8;
  let value: bigint;
  switch (size) {
    case 1: value = BigInt(data.readInt8(at)); break;
    case 2: value = BigInt(data.readInt16LE(at)); break;
    case 4: value = BigInt(data.readInt32LE(at)); break;
    default: value = data.readBigInt64LE(at); break;
  }
  return { kind: 'int', value, size: r.shown ?? size, signed: r.type !== 'uint' };
}
