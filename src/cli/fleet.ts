// dtrace(1) as a fleet's consumer (issue 18), when -x fleet=nats://... or DTRACE_FLEET names a
// NATS server with dtraced agents: compile once, match against every instance, ship the DOF,
// print records with their instance and aggregations merged across instances; exit() and END
// mean what they mean on one machine. main.ts imports this module (and with it NATS) only then.

import type { Compiled } from '../compiler/compile.js';
import { Consumer } from '../consumer/consumer.js';
import type { BufferPolicyName } from '../consumer/bufpolicy.js';
import { writeDof } from '../dof/writer.js';
import { matchField } from '../providers/glob.js';
import { listHeader, parseProbeSpecifier, type ListSpec } from '../providers/listing.js';
import { probeRegistry, type ProbeRegistry } from '../providers/registry.js';
import { isSet, numericOption, optionValue } from '../options.js';
import { Fleet, FleetError } from '../fleet/client.js';
import type { ListedProbe } from '../fleet/protocol.js';
import { traceTimers } from './timers.js';
import { bufsizeRefusal } from './bufsize.js';

export { FleetError };

export interface FleetRun {
  url: string;
  options: Map<string, string>;
  listing: boolean;
  /** -l's specifiers, once compiled (scripts list what their clauses name). */
  listSpecs: (compiled: Compiled | null) => ListSpec[];
  hasScripts: boolean;
  compile: (registry: ProbeRegistry) => Compiled | null;
  write: (text: string) => void;
  flush: () => void;
  err: (text: string) => void;
  notice: (m: string) => void;
  /** Until tracing, a signal ends dtrace; then `handler` has it. */
  onSignal: (handler: () => void) => Promise<void>;
  aggregationsAtExit: boolean;
}

export async function runFleet(r: FleetRun): Promise<number> {
  const fleet = await Fleet.open(r.url);
  try {
    const instances = (await fleet.discover()).map((a) => a.instance);
    if (instances.length === 0) throw new FleetError(`fleet ${fleet.shown}: no instance answers (is dtraced running?)`);
    const registry = probeRegistry();
    // An omitted instance (host) means every instance of the fleet; named ones must exist.
    registry.instanceNames = ['host', ...instances];
    if (r.listing && !r.hasScripts) return await list(fleet, instances, r.listSpecs(null), r);
    const compiled = r.compile(registry);
    if (compiled === null) return 1;
    if (r.listing) return await list(fleet, instances, r.listSpecs(compiled), r);
    return await trace(fleet, instances, compiled, r);
  } finally {
    await fleet.close();
  }
}

/** -l over the fleet: with more than one instance, an INSTANCE column after ID. */
async function list(fleet: Fleet, instances: string[], specs: ListSpec[], r: FleetRun): Promise<number> {
  const parsed = specs.map((s) => {
    const p = parseProbeSpecifier(s);
    if ('error' in p) throw new FleetError(p.error);
    return p;
  });
  const asked = specs.length === 0 ? [{ kind: 'n', text: ':::' }] : specs;
  const wanted = instances.filter((inst) => parsed.length === 0 ||
    parsed.flat().some((d) => 'id' in d || d.instance === 'host' || matchField(d.instance, inst)));
  const results = await Promise.all(wanted.map(async (inst) => ({ inst, probes: await fleet.list(inst, asked) })));
  const many = instances.length > 1;
  const header = listHeader();
  r.write(many ? `${header.slice(0, 6)} INSTANCE ${header.slice(6)}` : header);
  const pad = (s: string, w: number) => s.padStart(w);
  const row = (inst: string, p: ListedProbe) => many
    ? `${pad(String(p.id), 5)} ${pad(inst, 9)} ${pad(p.provider, 10)} ${pad(p.module, 17)} ${pad(p.func, 33)} ${p.name}\n`
    : `${pad(String(p.id), 5)} ${pad(p.provider, 10)} ${pad(p.module, 17)} ${pad(p.func, 33)} ${p.name}\n`;
  let notes = '';
  asked.forEach((s, i) => {
    let shown = 0;
    for (const { inst, probes } of results) {
      for (const p of probes[i]) r.write(row(inst, p)), shown++;
    }
    if (shown === 0) notes += `dtrace: failed to match ${s.kind === 'M' ? `${s.text}::::` : s.text}: No probe matches description\n`;
  });
  r.flush();
  if (notes) r.err(notes);
  return 0;
}

async function trace(fleet: Fleet, instances: string[], compiled: Compiled, r: FleetRun): Promise<number> {
  const options = r.options;
  const program = compiled.program;
  // The instances some description names: host (the default) names them all.
  const targets = instances.filter((inst) => program.ecbs.some((e) => e.probe.instance === 'host' || matchField(e.probe.instance, inst)));
  const device = await fleet.enable(targets, writeDof(program), isSet(options, 'destructive'));
  let closed = false;
  const closeAll = async () => {
    if (!closed) await device.closeAll();
    closed = true;
  };
  try {
    const enabled = device.result();
    // Each description's message counts the instances where it matched something.
    const perInstance = [...device.matchedOn.values()].map((m) => compiled.matchMessages(m).map((t) => !/ matched 0 probes$/.test(t)));
    compiled.matchMessages(enabled.matched).forEach((m, i) => {
      const n = perInstance.filter((hit) => hit[i]).length;
      r.notice(`${m.replace(/^dtrace: /, '')} on ${n} instance${n === 1 ? '' : 's'}`);
    });
    if (enabled.matched.reduce((a, b) => a + b, 0) === 0 && !isSet(options, 'zdefs')) throw new FleetError('no probes matched');
    const refused = bufsizeRefusal(numericOption(options, 'bufsize'), enabled.probes, numericOption(options, 'aggsize'), enabled.aggregations);
    if (refused) throw new FleetError(refused);

    const consumer = new Consumer(device, enabled, {
      quiet: isSet(options, 'quiet'), strsize: numericOption(options, 'strsize'), out: r.write, flush: r.flush, err: r.err,
      flowindent: isSet(options, 'flowindent'), options,
      bufpolicy: optionValue(options, 'bufpolicy') as BufferPolicyName, bufsize: numericOption(options, 'bufsize'),
    });
    let interrupted = 0;
    await r.onSignal(() => {
      interrupted++;
      if (interrupted === 1) return void r.write('\n');
      void closeAll().finally(() => process.exit(consumer.exitStatus ?? 0));
    });
    const failures = await device.goAll();
    if (failures.length > 0) throw new FleetError(failures[0]);
    if (isSet(options, 'destructive')) r.notice('allowing destructive actions');

    const timers = traceTimers(options);
    while (consumer.exitStatus === null && interrupted === 0 && !consumer.filled) {
      await device.wait(timers.msUntilNext());
      consumer.consume();
      for (const inst of device.lostInstances()) r.err(`dtrace: instance ${inst} lost\n`);
      if (device.live === 0) break;
      const due = timers.due();
      if (due.has('aggrate')) consumer.snapshotAggregations();
      if (due.has('statusrate')) consumer.status();
      if (due.has('cleanrate')) consumer.clean();
      r.flush();
    }
    await device.stopAll();
    closed = true;
    consumer.consume();
    consumer.flush();
    consumer.status();
    consumer.snapshotAggregations();
    consumer.finish(r.aggregationsAtExit);
    r.flush();
    return consumer.exitStatus ?? 0;
  } finally {
    await closeAll();
  }
}

