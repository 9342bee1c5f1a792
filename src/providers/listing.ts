// `dtrace -l` output, laid out exactly as dtrace(1) prints it:
//   header and rows: "%5s %10s %17s %33s %s\n" (ID, PROVIDER, MODULE, FUNCTION, NAME)
//   with -v, after each row: the probe description attributes, the argument attributes and the
//   argument types ("args[N]: TYPE", or "None").

import { type Probe, type ProbeSpec } from './provider.js';
import { DEPENDENCY_CLASS, STABILITY, type Attribute, type ProviderAttributes } from '../abi/stability.js';
import { isGlob } from './glob.js';
import type { ProbeRegistry } from './registry.js';
import { runningUsdtProviders } from './usdt.js';

function padLeft(s: string, width: number): string {
  return s.length >= width ? s : ' '.repeat(width - s.length) + s;
}

function row(id: string, provider: string, mod: string, func: string, name: string): string {
  return `${padLeft(id, 5)} ${padLeft(provider, 10)} ${padLeft(mod, 17)} ${padLeft(func, 33)} ${name}\n`;
}

export function listHeader(): string {
  return row('ID', 'PROVIDER', 'MODULE', 'FUNCTION', 'NAME');
}

export function listRow(p: Probe): string {
  return row(String(p.id), p.provider, p.module, p.func, p.name);
}

/** The lower of two attributes, element by element (dt_attr_min). */
function minAttribute(a: Attribute, b: Attribute): Attribute {
  const lower = <T extends string>(order: readonly T[], x: T, y: T): T =>
    order.indexOf(x) <= order.indexOf(y) ? x : y;
  return {
    name: lower(STABILITY, a.name, b.name),
    data: lower(STABILITY, a.data, b.data),
    dependency: lower(DEPENDENCY_CLASS, a.dependency, b.dependency),
  };
}

/**
 * A probe's description attributes: the provider's, lowered by those of each element the probe
 * names (empty or glob elements do not count), as dtrace computes them.
 */
export function probeAttributes(p: Probe, pa: ProviderAttributes): Attribute {
  let a = pa.provider;
  const named = (s: string) => s !== '' && !isGlob(s);
  if (named(p.module)) a = minAttribute(a, pa.module);
  if (named(p.func)) a = minAttribute(a, pa.function);
  if (named(p.name)) a = minAttribute(a, pa.name);
  return a;
}

function attributeLines(title: string, a: Attribute): string {
  return (
    `\n\t${title}\n` +
    `\t\tIdentifier Names: ${a.name}\n` +
    `\t\tData Semantics:   ${a.data}\n` +
    `\t\tDependency Class: ${a.dependency}\n`
  );
}

/** The -v block printed after a probe's row. */
export function probeInfo(p: Probe, pa: ProviderAttributes): string {
  let out = attributeLines('Probe Description Attributes', probeAttributes(p, pa));
  out += attributeLines('Argument Attributes', pa.args);
  out += '\n\tArgument Types\n';
  const typed = (p.xargs ?? p.args).map((a, index) => ({ index, type: a.type })).filter((a) => a.type !== null);
  for (const a of typed) out += `\t\targs[${a.index}]: ${a.type}\n`;
  if (typed.length === 0) out += '\t\tNone\n';
  return out + '\n';
}

/** A probe specifier from the command line: its option letter ('n', 'P', 'm', 'f' or 'i') and text. */
export interface ListSpec {
  kind: string;
  text: string;
}

export type ParsedSpecifier = { spec: ProbeSpec; instance: string } | { id: number };

/** What -P, -m and -f name, in their refusal of a probe id. */
export const SPECIFYING: Readonly<Record<string, string>> = { P: 'providers', m: 'modules', f: 'functions' };

/**
 * Whether a -P/-m/-f description (split at ':') names more elements than its option takes: they
 * are taken from the right up to `last` (0 provider ... 2 function), and what is left over must be
 * nothing (`-f :genunix::` is genunix:::, as DTrace reads it).
 */
export function isOverspecified(parts: string[], last: number): boolean {
  return parts.slice(0, Math.max(0, parts.length - last - 1)).join(':') !== '';
}

/** Which description field the last element of each kind of specifier fills. */
const LAST_FIELD: Record<string, number> = { P: 0, m: 1, f: 2, n: 3, i: 3 };

/**
 * Split a specifier's text into probe descriptions, as dtrace(1) does for -l: descriptions are
 * separated by commas, a clause body (from '/', '{' or ';') is ignored, elements fill the
 * description from the right (`-f read` is ::read:, `-n read:entry` is ::read:entry), an RFD 2
 * instance may come first, and a number alone is a probe id.
 */
export function parseProbeSpecifier(s: ListSpec): ParsedSpecifier[] | { error: string } {
  // A clause's predicate or body ends the description (`-m 'unix/probefunc == "x"/'`), but a -m
  // module that starts with '/' is a binary's path (USDT: `-m /usr/bin/x`, `-m 'python:/usr/bin/x'`).
  const path = s.kind === 'm' && /^(?:[^:/{;]*:)?\//.test(s.text);
  const cut = s.text.search(path ? /[{;]/ : /[/{;]/);
  const text = cut < 0 ? s.text : s.text.slice(0, cut);
  if (s.kind === 'M') {
    // -M NAME (RFD 2): every probe of the instance.
    return text.split(',').map((name) => ({ spec: { provider: '', module: '', function: '', name: '' }, instance: name.trim() }));
  }
  const last = LAST_FIELD[s.kind];
  if (last === undefined) return { error: `-${s.kind} is not a probe specifier option` };
  const out: ParsedSpecifier[] = [];
  for (const raw of text.split(',')) {
    let desc = raw.trim();
    // DTrace's lexer reads digits that start a description as a probe id, and what follows them
    // as a description of its own (`-li 2-2` is the probe 2, then :::-2). -P/-m/-f refuse one.
    const int = /^(?:0[xX][0-9a-fA-F]+|[0-9]+)/.exec(desc);
    if (int) {
      const id = Number(int[0].startsWith('0') && !/^0[xX]/.test(int[0]) ? parseInt(int[0], 8) : int[0]);
      if (SPECIFYING[s.kind]) {
        return { error: `invalid probe specifier ${s.text}: probe identifier ${id} not permitted when specifying ${SPECIFYING[s.kind]}` };
      }
      out.push({ id });
      desc = desc.slice(int[0].length);
      if (desc === '') continue;
    }
    const parts = desc.split(':');
    // Four fields at most, plus the instance in front of a full description.
    if (last === 3 ? parts.length > 5 : isOverspecified(parts, last)) {
      return {
        error:
          `invalid probe specifier ${s.text}: ` +
          `invalid probe description "${desc}": Overspecified probe description`,
      };
    }
    const fields = ['', '', '', ''];
    let instance = 'host';
    if (parts.length === 5) instance = parts.shift()!;
    if (parts.length > last + 1) parts.splice(0, parts.length - last - 1);
    parts.forEach((p, i) => (fields[last - (parts.length - 1) + i] = p));
    out.push({
      spec: { provider: fields[0], module: fields[1], function: fields[2], name: fields[3] },
      instance,
    });
  }
  return out;
}

export type ListResult =
  /** text: for stdout; stderr: "failed to match" notes for descriptions that matched nothing. */
  | { text: string; stderr: string }
  /** A specifier dtrace would refuse: print "dtrace: " + error and exit 1. */
  | { error: string };

/**
 * The whole `dtrace -l [-v]` output: every probe when no specifiers are given, else the probes
 * each specifier matches, in order. Matching nothing is not an error under -l (it implies -Z);
 * dtrace notes it on stderr ("failed to match P:M:F:N: No probe matches description").
 */
export function listProbes(registry: ProbeRegistry, specs: ListSpec[] = [], verbose = false): ListResult {
  const parsed: ParsedSpecifier[] = [];
  for (const s of specs) {
    const r = parseProbeSpecifier(s);
    if ('error' in r) return r;
    parsed.push(...r);
  }
  let text = listHeader();
  let stderr = '';
  let shown = 0;
  const show = (probes: Probe[], ofBinary = false) => {
    for (const p of probes) {
      // A probe of every process of a binary is listed as each running process's provider has it;
      // asked for by the binary's path, as the binary has it (the provider without a pid).
      if (p.perProcess && !ofBinary) {
        for (const pid of p.perProcess.processes()) {
          show(registry.match({ provider: `${p.provider}${pid}`, module: p.module, function: p.func, name: p.name }));
        }
        continue;
      }
      text += listRow(p) + (verbose ? verboseInfo(registry, p) : '');
      shown++;
    }
  };
  if (specs.length === 0) {
    show(registry.all());
    // Then the USDT providers of running processes, as DTrace lists those its helpers registered:
    // made now, so they take ids after every other probe.
    for (const provider of runningUsdtProviders()) show(registry.match({ provider, module: '', function: '', name: '' }));
  }
  for (const d of parsed) {
    if ('id' in d) {
      const probe = registry.byId(d.id);
      if (!probe) return { error: `invalid probe specifier ${d.id}: invalid probe identifier ${d.id}: Unknown probe identifier` };
      show([probe]);
      continue;
    }
    const probes = registry.match({ ...d.spec, instance: d.instance });
    const before = shown;
    show(probes, d.spec.module.startsWith('/'));
    if (shown === before) {
      const { provider, module, function: fn, name } = d.spec;
      // RFD 2: the instance is named only when the user gave one.
      const inst = d.instance !== 'host' ? `${d.instance}:` : '';
      stderr += `dtrace: failed to match ${inst}${provider}:${module}:${fn}:${name}: No probe matches description\n`;
    }
  }
  return { text, stderr };
}

function verboseInfo(registry: ProbeRegistry, p: Probe): string {
  const provider = registry.provider(p.provider);
  return provider ? probeInfo(p, provider.attributes) : '';
}
