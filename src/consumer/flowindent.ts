// -F / -x flowindent: the record prefix that shows call flow, as dtrace(1) lays it out.
//
// Facts followed (libdtrace dt_consume.c dt_flowindent, cmd/dtrace chew):
// - a probe named "entry" or ending in "-entry" is an entry, "return" or "-return" a return;
//   syscall probes are marked " => " / " <= ", all others " -> " / " <- "; any other probe
//   gets "| " and its function:name; an entry or return whose function is unknown (a USDT site
//   no symbol covers) shows its probe name instead;
// - the heading is "%3s %-41s" of CPU and FUNCTION, each record starts "%3d %-41s " with the
//   indent (two spaces per entry level, shared by all CPUs), the mark and the function;
// - an entry is not indented when the record before it was another enabling of the same probe,
//   and a return is not unindented when the record after it in the same buffer is another
//   enabling of the same probe (one firing traced by several clauses).

import type { EnabledProbe } from '../device/device.js';

export type Flow = 'entry' | 'return' | 'none';

/** Which way a probe moves the flow, by its name. */
export function flowOf(name: string): Flow {
  if (endsAsWord(name, 'entry')) return 'entry';
  if (endsAsWord(name, 'return')) return 'return';
  return 'none';
}

function endsAsWord(name: string, word: string): boolean {
  return name === word || name.endsWith('-' + word);
}

/** The heading printed before the first record under -F (quiet or not). */
export function flowHeading(): string {
  return 'CPU ' + 'FUNCTION'.padEnd(41) + '\n';
}

export class FlowIndent {
  private indent = 0;
  private last: EnabledProbe | null = null;

  /**
   * The prefix of one record. `next` is the enabled probe of the record after it in the same
   * buffer (null at the end of the buffer).
   */
  prefix(cpu: number, ep: EnabledProbe, next: EnabledProbe | null): string {
    let flow = flowOf(ep.probe.name);
    if (flow === 'entry' && this.last && this.last.epid !== ep.epid && this.last.probe.id === ep.probe.id) flow = 'none';
    if (flow === 'return' && next && next.epid !== ep.epid && next.probe.id === ep.probe.id) flow = 'none';
    const syscall = ep.probe.provider === 'syscall';
    if (flow === 'return' && this.indent > 0) this.indent -= 2;
    let name: string;
    // A USDT site in a function no symbol names: the probe's name, rather than a bare arrow.
    const func = ep.probe.func || ep.probe.name;
    if (flow === 'entry') name = (syscall ? ' => ' : ' -> ') + func;
    else if (flow === 'return') name = (syscall ? ' <= ' : ' <- ') + func;
    else name = `| ${ep.probe.func}:${ep.probe.name}`;
    const text = `${String(cpu).padStart(3)} ${(' '.repeat(this.indent) + name).padEnd(41)} `;
    if (flow === 'entry') this.indent += 2;
    this.last = ep;
    return text;
  }
}
