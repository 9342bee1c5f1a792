// dtrace -B: output goes to DTrace's buffered output handler instead of a file. dtrace(1)'s
// handler is a debugging aid that, for each piece of output libdtrace formats, prints what it was
// given: the text, the probe, the record description and the aggregation, each field on a line
// of its own behind "dtrace:". What dtrace(1) prints itself (the column heading, each record's
// CPU/ID/FUNCTION:NAME prefix and its newline, -v reports) has no output file under -B and is
// not printed at all.

/** The DTRACE_BUFDATA_* flags of an aggregation's output (sys/dtrace.h). */
export const BUFDATA_AGGKEY = 0x1;
export const BUFDATA_AGGVAL = 0x2;
export const BUFDATA_AGGFORMAT = 0x4;
export const BUFDATA_AGGLAST = 0x8;

const FLAG_NAMES: [string, number][] = [
  ['AGGVAL', BUFDATA_AGGVAL], ['AGGKEY', BUFDATA_AGGKEY], ['AGGFORMAT', BUFDATA_AGGFORMAT], ['AGGLAST', BUFDATA_AGGLAST],
];

/** One piece of buffered output and what it came from (dtrace_bufdata_t). */
export interface BufferedPiece {
  text: string;
  /** A record's output: the probe that fired. */
  probe?: { provider: string; module: string; func: string; name: string };
  /** A record's output: its record description. */
  rec?: { action: number; size: number; offset: number };
  /** An aggregation's output: its description. */
  agg?: { name: string; varid: number; id: number; nrecs: number };
  flags: number;
}

/** The lines dtrace(1)'s buffered handler prints for one piece. */
export function formatBufferedPiece(p: BufferedPiece): string {
  let out = '';
  const hdr = (h: string) => (out += `dtrace: ${h}${h.length > 0 ? ':' : ''}\n`);
  const field = (name: string, value: string) => (out += `dtrace: ${name.padStart(20)} => ${value}\n`);
  // Strings are quoted with each newline as \n; the handler also writes the terminating NUL.
  const str = (name: string, s: string) => field(name, `"${s.replace(/\n/g, '\\n')}\0"`);
  const ptr = (name: string, present: boolean) => field(name, present ? '<non-NULL>' : '<NULL>');

  hdr('>>> Called buffer handler');
  hdr('');
  hdr('  dtrace_bufdata');
  str('dtbda_buffered', p.text);
  ptr('dtbda_probe', p.probe !== undefined);
  ptr('dtbda_aggdata', p.agg !== undefined);
  ptr('dtbda_recdesc', p.rec !== undefined);
  let flags = `0x${p.flags.toString(16)} `;
  const names: string[] = [];
  let rest = p.flags;
  for (const [name, bit] of FLAG_NAMES) {
    if (rest & bit) {
      names.push(name);
      rest &= ~bit;
    }
  }
  if (rest) names.push('???');
  if (names.length > 0) flags += `(${names.join(' | ')})`;
  field('dtbda_flags', flags);
  hdr('');
  if (p.probe) {
    hdr('  dtrace_probedesc');
    str('dtpd_provider', p.probe.provider);
    str('dtpd_mod', p.probe.module);
    str('dtpd_func', p.probe.func);
    str('dtpd_name', p.probe.name);
    hdr('');
  }
  if (p.rec) {
    hdr('  dtrace_recdesc');
    field('dtrd_action', String(p.rec.action));
    field('dtrd_size', String(p.rec.size));
    field('dtrd_offset', String(p.rec.offset));
    hdr('');
  }
  if (p.agg) {
    hdr('  dtrace_aggdesc');
    str('dtagd_name', p.agg.name);
    field('dtagd_varid', String(p.agg.varid));
    field('dtagd_id', String(p.agg.id));
    field('dtagd_nrecs', String(p.agg.nrecs));
    hdr('');
  }
  return out;
}
