// The consumer: drains the device's per-CPU buffers, decodes each record by its enabled probe's
// description, and prints it as dtrace(1) does; at the end, snapshots and prints aggregations.

import * as D from '../dif/constants.js';
import type {
  CpuBuffer, Device, EnableResult, EnabledProbe,
  RecordDescription,
} from '../device/device.js';
import { FAULT_EPID, RECORD_HEADER_SIZE } from '../device/device.js';
import { Aggregations, aggSortOptions, aggregationRecord } from './aggregations.js';
import { countPrintfArgs, formatPrintf } from './printf.js';
import { type Value, formatTraceValue, probeHeader, recordPrefix } from './records.js';

export interface ConsumerOptions {
  quiet: boolean;
  strsize: number;
  out: (text: string) => void;
  err: (text: string) => void;
  /** Options (-x and #pragma D option) the consumer honours: the aggregation sorting options. */
  options?: Map<string, string>;
  /** -F / -x flowindent: indent by function entry and return (set by dtrace(1); not yet laid out). */
  flowindent?: boolean;
}

export class Consumer {
  private byEpid = new Map<number, EnabledProbe>();
  private headerPrinted = false;
  /** Set when an exit() record has been consumed: the exit status. */
  exitStatus: number | null = null;
  errors = 0;

  private aggs: Aggregations;

  constructor(private device: Device, private enabled: EnableResult, private opts: ConsumerOptions) {
    for (const p of enabled.probes) this.byEpid.set(p.epid, p);
    this.aggs = new Aggregations(device, enabled.aggregations, { ...aggSortOptions(opts.options), strsize: opts.strsize });
  }

  /** Drain every CPU buffer once and print what it held. */
  consume(): void {
    this.process(this.device.drain());
    // Dynamic variable drops, as DTrace reports them from its status.
    const dyn = this.device.dynamicVariableDrops();
    if (dyn > 0) this.opts.err(`dtrace: ${dyn} dynamic variable drop${dyn === 1 ? '' : 's'}\n`);
  }

  process(buffers: CpuBuffer[]): void {
    for (const b of buffers) {
      if (b.lost > 0) this.opts.err(`dtrace: ${b.lost} drop${b.lost === 1 ? '' : 's'} on CPU ${b.cpu}\n`);
      for (const rec of b.records) this.record(b.cpu, rec);
    }
    const drops = this.aggs.drops();
    if (drops) this.opts.err(drops);
  }

  private record(cpu: number, raw: Buffer): void {
    const epid = raw.readUInt32LE(0);
    if (epid === FAULT_EPID) return this.fault(raw.subarray(RECORD_HEADER_SIZE));
    const ep = this.byEpid.get(epid);
    if (!ep) {
      this.opts.err(`dtrace: failed to process buffer on CPU ${cpu}: invalid enabled probe ID ${epid}\n`);
      return;
    }
    const data = raw.subarray(RECORD_HEADER_SIZE);
    const { quiet } = this.opts;
    let line = '';
    if (!quiet) {
      if (!this.headerPrinted) {
        this.opts.out(probeHeader());
        this.headerPrinted = true;
      }
      line = recordPrefix(cpu, ep.probe.id, ep.probe.func, ep.probe.name);
    }
    const recs = ep.records;
    for (let i = 0; i < recs.length; i++) {
      const r = recs[i];
      switch (r.action) {
        case D.DTRACEACT_PRINTF: {
          const need = countPrintfArgs(r.format ?? '');
          const args: Value[] = [];
          // The printf record itself holds the first argument (none when it is void).
          if (r.size > 0 && need > 0) args.push(decode(r, data));
          while (args.length < need && i + 1 < recs.length && recs[i + 1].action === D.DTRACEACT_DIFEXPR) {
            args.push(decode(recs[++i], data));
          }
          line += formatPrintf(r.format ?? '', args);
          break;
        }
        case D.DTRACEACT_DIFEXPR:
          if (r.size === 0) break; // an expression statement: side effects only
          line += formatTraceValue(decode(r, data), { quiet, strsize: this.opts.strsize });
          break;
        case D.DTRACEACT_PRINTA:
        case D.DTRACEACT_LIBACT: {
          const used = aggregationRecord(this.aggs, recs, i, data);
          line += used.text;
          i += used.consumed - 1;
          break;
        }
        case D.DTRACEACT_EXIT:
          if (this.exitStatus === null) {
            const v = decode(r, data);
            this.exitStatus = v.kind === 'int' ? Number(v.value) : 0;
          }
          break;
        default:
          break;
      }
    }
    if (!quiet) line += '\n';
    this.opts.out(line);
  }

  /** A fault record: the ERROR probe's arguments. */
  private fault(d: Buffer): void {
    const epid = d.readUInt32LE(0), action = d.readUInt32LE(4), offset = d.readUInt32LE(8);
    const code = d.readUInt32LE(12), addr = d.readBigUInt64LE(16);
    const ep = this.byEpid.get(epid);
    const where = ep ? `${ep.probe.provider}:${ep.probe.module}:${ep.probe.func}:${ep.probe.name}` : '?';
    this.errors++;
    this.opts.err(
      `dtrace: error on enabled probe ID ${epid} (ID ${ep?.probe.id ?? 0}: ${where}): ` +
        `${faultMessage(code, addr)} in ${action === 0 ? 'predicate' : `action #${action}`} at DIF offset ${offset}\n`,
    );
  }

  /** Print every aggregation, as dtrace does at exit. */
  printAggregations(): void {
    this.opts.out(this.aggs.formatAll());
  }
}

export function faultMessage(code: number, addr: bigint): string {
  const msg = D.faultMessage(code);
  if (code === D.DTRACEFLT_BADADDR || code === D.DTRACEFLT_BADALIGN || code === D.DTRACEFLT_KPRIV || code === D.DTRACEFLT_UPRIV)
    return `${msg} (0x${addr.toString(16)})`;
  return msg;
}

/** Read one record's value. */
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
  return { kind: 'int', value, size, signed: r.type !== 'uint' };
}
