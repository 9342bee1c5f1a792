// -x oformat=json: structured output. Every probe firing, drop and aggregation becomes part of
// one JSON document, in the shape FreeBSD's DTrace gives its oformat output (dtrace(1),
// STRUCTURED OUTPUT):
//
//   {"dtrace": {"probes": [
//     {"timestamp", "cpu", "id", "provider", "module", "function", "name", "output": [...]},
//     {"cpu": -1, "id": -1, "provider": "dtrace", "module": "INTERNAL", "function": "INTERNAL",
//      "name": "DROP", "timestamp", "count", "total", "kind", "msg"},   (drops)
//   ], "aggregations": [...]}}                                      (at exit, with -O)
//
// Output items: trace() {"value"}; printf() {"message"} then one {"value"} per argument ({"value": 0}
// when it has none); printa() {"aggregation-name", "aggregation-data": [{"keys": [...],
// "count"|"sum"|"min"|"max"|"avg"|"stddev" | "buckets": [{"value", "count"}]}]}; stack()
// {"stack-frames"}, ustack() {"ustack-frames"}; sym() {"sym", "object", "name"}; mod(), usym(),
// umod(), uaddr(), tracemem() and print() an object keyed by the action's name.

import { spawnSync } from 'node:child_process';
import * as D from '../dif/constants.js';
import type { EnabledProbe, RecordDescription } from '../device/device.js';
import {
  type AggDesc, type AggEntry, aggScalarValue, distributionRows,
} from './aggprint.js';
import type { Aggregations, AggTable } from './aggregations.js';
import { formatPrint } from './print.js';
import { walkActions } from './walk.js';
import { formatPrintf, type PrintfOptions } from './printf.js';
import { asSigned, asUnsigned, type Value } from './records.js';
import { isSymbolicAction, symbolicKey } from './stacks.js';
import { dropKind } from './drops.js';

/** A JSON value; bigints are written as exact integers. */
export type Json = null | boolean | number | bigint | string | Json[] | { [key: string]: Json };

/** The output formats dtrace writes: text (the default) and json. */
export interface OutputFormat {
  format: 'text' | 'json';
  pretty: boolean;
}

/** A -x oformat value (validated with the other options, src/options.ts): `text`, `none`, `json[,pretty]`. */
export function parseOformat(value: string | undefined): OutputFormat {
  const [style, ...mods] = (value ?? 'text').split(',');
  return { format: style === 'json' ? 'json' : 'text', pretty: mods.includes('pretty') };
}

/** Serialize a JSON value; with `indent`, one member a line, nested `depth` levels in. */
export function toJson(v: Json, indent = 0, depth = 0): string {
  if (v === null) return 'null';
  if (typeof v === 'bigint') return v.toString();
  if (typeof v !== 'object') return JSON.stringify(v);
  const nl = indent > 0 ? '\n' + ' '.repeat(indent * (depth + 1)) : '';
  const end = indent > 0 ? '\n' + ' '.repeat(indent * depth) : '';
  const sep = indent > 0 ? ': ' : ':';
  if (Array.isArray(v)) {
    if (v.length === 0) return '[]';
    return '[' + v.map((x) => nl + toJson(x, indent, depth + 1)).join(',') + end + ']';
  }
  const keys = Object.keys(v);
  if (keys.length === 0) return '{}';
  return '{' + keys.map((k) => nl + JSON.stringify(k) + sep + toJson(v[k], indent, depth + 1)).join(',') + end + '}';
}

/** What a record walk needs from the consumer. */
export interface RecordContext {
  aggs: Aggregations;
  printf: PrintfOptions;
  /** setopt(): the consumer sets the option (its failure goes to stderr, not the document). */
  setopt?: (option: string, value: string) => void;
}

/** The JSON document of one dtrace run, written as it goes so that a long run streams. */
export class JsonOutput {
  private entries = 0;
  private opened = false;
  private closed = false;
  private totals = new Map<number, bigint>();
  private indent: number;

  constructor(private write: (text: string) => void, pretty: boolean) {
    this.indent = pretty ? 2 : 0;
  }

  /** The document starts with its first output, so that a run failing before any prints nothing. */
  private open(): void {
    if (this.opened) return;
    this.opened = true;
    this.write(this.indent ? '{\n  "dtrace": {\n    "probes": [' : '{"dtrace":{"probes":[');
  }

  private entry(obj: { [key: string]: Json }): void {
    if (this.closed) return;
    this.open();
    const nl = this.indent ? '\n      ' : '\n';
    this.write((this.entries++ > 0 ? ',' : '') + nl + toJson(obj, this.indent, 3));
  }

  /** One probe firing: its identity and what its actions recorded. */
  record(cpu: number, ep: EnabledProbe, data: Buffer, ctx: RecordContext): void {
    const p = ep.probe;
    this.entry({
      timestamp: new Date().toISOString(), cpu, id: p.id, provider: p.provider, module: p.module,
      function: p.func, name: p.name, output: recordOutput(ep.records, data, ctx),
    });
  }

  /** A drop message dtrace would print on stderr ("dtrace: N ... drops ..."), as DROP entries. */
  drops(text: string): void {
    for (const line of text.split('\n')) {
      const m = /^dtrace: (\d+) /.exec(line);
      if (!m) continue;
      const kind = dropKind(line);
      const count = BigInt(m[1]);
      const total = (this.totals.get(kind) ?? 0n) + count;
      this.totals.set(kind, total);
      this.entry({
        cpu: -1, id: -1, provider: 'dtrace', module: 'INTERNAL', function: 'INTERNAL', name: 'DROP',
        timestamp: new Date().toISOString(), count, total, kind, msg: line.slice('dtrace: '.length) + '\n',
      });
    }
  }

  /** End the document, with the aggregations printed at exit (-O) if any. */
  close(aggregations: AggTable[] = []): void {
    if (this.closed) return;
    this.open();
    this.closed = true;
    const i = this.indent;
    let out = i ? '\n    ]' : ']';
    if (aggregations.length > 0) {
      out += (i ? ',\n    "aggregations": ' : ',"aggregations":') + toJson(aggregations.map(aggregationJson), i, 2);
    }
    this.write(out + (i ? '\n  }\n}\n' : '}}\n'));
  }
}

/** The "output" list of one record: an item per action, as the text output would show them. */
export function recordOutput(recs: RecordDescription[], data: Buffer, ctx: RecordContext): Json[] {
  const out: Json[] = [];
  walkActions(recs, data, ctx.aggs, {
    printf: (r, args) => {
      const text = formatPrintf(r.format ?? '', args, ctx.printf);
      if (r.action === D.DTRACEACT_SYSTEM) {
        // The command's output becomes part of the document rather than breaking it.
        const run = spawnSync('/bin/sh', ['-c', text], { stdio: ['inherit', 'pipe', 'inherit'] });
        out.push({ system: text, output: run.stdout?.toString('utf8') ?? '' });
        return;
      }
      if (r.action !== D.DTRACEACT_PRINTF) return; // freopen(): the document stays where it is
      out.push({ message: text });
      if (args.length === 0) out.push({ value: 0 });
      for (const a of args) out.push({ value: valueJson(a) });
    },
    trace: (_r, v) => { out.push({ value: valueJson(v) }); },
    print: (r, bytes) => { out.push({ print: formatPrint(r.format!, bytes) }); },
    printa: (_r, ids) => { for (const t of ctx.aggs.tables(ids)) out.push(aggregationJson(t)); },
    setopt: (_r, option, value) => ctx.setopt?.(option, value),
    tracemem: (_r, bytes) => { out.push({ tracemem: bytes.toString('hex') }); },
    exit: () => {}, // the consumer takes the status (Consumer.noteExit)
    symbolic: (r, data) => { out.push(symbolicJson(r.action, symbolicKey(r, data))); },
  });
  return out;
}

/** A traced value: integers as exact numbers (1- and 2-byte ones unsigned, as dtrace prints them). */
export function valueJson(v: Value): Json {
  switch (v.kind) {
    case 'int': {
      if (v.shown !== undefined) return v.shown.trim();
      return v.size <= 2 ? asUnsigned(v) : asSigned(v);
    }
    case 'string':
      return v.value;
    case 'bytes': {
      if (v.shown !== undefined) return v.shown.trim();
      // Text followed only by NULs is a string; anything else its bytes in hex.
      const nul = v.value.indexOf(0);
      const text = v.value.subarray(0, nul < 0 ? v.value.length : nul);
      const printable = text.length > 0 && text.every((b) => b >= 0x20 && b <= 0x7e);
      if (printable && v.value.subarray(text.length).every((b) => b === 0)) return text.toString('latin1');
      return v.value.toString('hex');
    }
  }
}

/** One frame text (module`name+0xoff) as its parts. */
function frameJson(text: string): Json {
  const m = /^([^`]*)`(.*?)(?:\+(0x[0-9a-f]+))?$/.exec(text);
  if (!m) return { symbol: text, offset: text };
  const f: { [key: string]: Json } = { symbol: text, module: m[1] };
  if (m[2].startsWith('0x')) f.offset = m[2];
  else {
    f.name = m[2];
    if (m[3]) f.offset = m[3];
  }
  return f;
}

/** The symbol actions whose item is keyed by the action's name (dif/constants.ts); sym() has its parts. */
const NAMED_SYMBOLS = new Set([D.DTRACEACT_MOD, D.DTRACEACT_USYM, D.DTRACEACT_UMOD, D.DTRACEACT_UADDR]);

/** A stack or symbol record (or aggregation key). */
function symbolicJson(action: number, v: Value): Json {
  if (v.kind === 'bytes' && v.frames) {
    const list = action === D.DTRACEACT_STACK ? 'stack-frames' : 'ustack-frames';
    return { [list]: v.frames.map(frameJson) };
  }
  const shown = (v.kind !== 'string' ? v.shown ?? '' : v.value).trim();
  if (action === D.DTRACEACT_SYM) {
    const m = /^([^`]*)`([^+]*)$/.exec(shown);
    return m ? { sym: shown, object: m[1], name: m[2] } : { sym: shown, offset: shown };
  }
  return { [NAMED_SYMBOLS.has(action) ? D.DTRACEACT_NAMES.get(action)! : 'value']: shown };
}

/** A key of an aggregation entry. */
function keyJson(k: Value, action: number | undefined): Json {
  if (action !== undefined && isSymbolicAction(action)) return symbolicJson(action, k);
  return { value: valueJson(k) };
}

/** One aggregation with its entries, in the order dtrace prints them. */
export function aggregationJson(t: AggTable): Json {
  return {
    'aggregation-name': t.name,
    'aggregation-data': t.entries.map((e) => entryJson(t.desc, e, t.keyActions)),
  };
}

function entryJson(desc: AggDesc, e: AggEntry, keyActions: number[]): Json {
  const out: { [key: string]: Json } = { keys: e.keys.map((k, i) => keyJson(k, keyActions[i])) };
  const rows = distributionRows(desc, e.data);
  if (rows) out.buckets = rows.map((r) => ({ value: r.value, count: r.count }));
  else out[desc.action] = aggScalarValue(desc, e.data);
  return out;
}
