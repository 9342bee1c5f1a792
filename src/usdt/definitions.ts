// dtrace -h and -G: the files a C program needs to define USDT probes from D provider declarations,
// named as dtrace(1) names them.
//
//   -h  one header for all programs: -o FILE, else SCRIPT.h (from SCRIPT.d) in the current directory
//   -G  one object per program: -o FILE (one program), else SCRIPT.o, else d.out (d.out.N for many)
//
// The object files named after the options are what DTrace's -G rewrites; SDT notes need no
// rewriting, so they are only read: the probe sites their notes hold go into the providers' DOF,
// which the -G object carries (usdt-sites.ts, usdt-object.ts).

import { closeSync, openSync, readSync, writeFileSync } from 'node:fs';
import { basename } from 'node:path';
import { DtraceError, formatCompileError } from '../compiler/errors.js';
import { headerText, providersOfSource, sdtName, type DeclaredProvider } from './header.js';
import { semaphoreObject } from './object.js';
import { probeSites, type ProbeSite } from './sites.js';
import { writeDof } from '../dof/writer.js';
import type { UsdtProbe, UsdtProvider } from '../dof/program.js';
import { attr, parseAttribute } from '../abi/stability.js';

/** A failure of -h/-G: the message dtrace prints after "dtrace: " and its exit status. */
export class DefinitionError extends Error {
  constructor(message: string, readonly status = 1) {
    super(message);
  }
}

export interface DefinitionSource {
  kind: string; // 's' for a script, else a -n/-P/... description
  text: string;
  name: string; // script path, or the description
}

function providersOf(source: DefinitionSource): DeclaredProvider[] {
  try {
    return providersOfSource(source.text, source.kind === 's' ? source.name : undefined);
  } catch (e) {
    if (!(e instanceof DtraceError)) throw e;
    const mode = source.kind === 's' ? 'script' : 'probe';
    throw new DefinitionError(formatCompileError(e, { mode, source: source.name }).replace(/^dtrace: /, ''));
  }
}

/** The script's name without ".d", or null when it is not a .d script. */
function stem(source: DefinitionSource): string | null {
  if (source.kind !== 's' || !source.name.endsWith('.d')) return null;
  return basename(source.name).slice(0, -2);
}

function write(path: string, data: string | Buffer, what: string): void {
  try {
    writeFileSync(path, data);
  } catch (e) {
    throw new DefinitionError(`failed to open ${what} '${path}': ${(e as Error).message}`);
  }
}

/** dtrace -h: writes the header; returns its path. */
export function writeHeader(sources: DefinitionSource[], output: string | undefined): string {
  if (sources.length === 0) throw new DefinitionError('-h requires one or more scripts or enabling options', 2);
  let path = output;
  if (path === undefined) {
    if (sources.length > 1) throw new DefinitionError('-h requires an output file if multiple scripts are specified', 2);
    const s = stem(sources[0]);
    if (s === null) throw new DefinitionError('-h requires an output file if no scripts are specified', 2);
    path = `${s}.h`;
  }
  const providers = sources.flatMap(providersOf);
  write(path, headerText(providers, path), 'header file');
  return path;
}

/**
 * The longest USDT provider name: with a pid of up to 10 digits appended and a NUL it must fit
 * DTrace's 64-byte provider name (DTRACE_PROVNAMELEN).
 */
const USDT_PROVIDER_NAME_MAX = 64 - 10 - 1;

/** dtrace -G: writes one object per program; returns their paths. */
export function writeObjects(sources: DefinitionSource[], output: string | undefined, objects: string[]): string[] {
  if (sources.length === 0) throw new DefinitionError('-G requires one or more scripts or enabling options', 2);
  for (const obj of objects) checkObject(obj);
  const sites = objects.flatMap(probeSites);
  return sources.map((source, i) => {
    const s = stem(source);
    const path = sources.length === 1 && output !== undefined ? output
      : s !== null ? `${s}.o` : sources.length > 1 ? `d.out.${i}` : 'd.out';
    // dtrace(1) names a script it links without its ".d", which it strips to name the object.
    const what = source.kind === 's' ? `script ${source.name.replace(/\.d$/, '')}` : `description ${source.name}`;
    let providers: DeclaredProvider[];
    try {
      providers = providersOf(source);
    } catch (e) {
      if (e instanceof DefinitionError) throw e;
      throw new DefinitionError(`failed to link ${what}: ${(e as Error).message}`);
    }
    const long = providers.find((p) => p.name.length > USDT_PROVIDER_NAME_MAX);
    if (long) throw new DefinitionError(`failed to link ${what}: USDT provider name may not exceed ${USDT_PROVIDER_NAME_MAX} characters: ${long.name}`);
    const described = usdtProviders(providers, sites);
    const dof = described.length > 0 ? writeDof({ ecbs: [], options: new Map(), providers: described }) : undefined;
    write(path, semaphoreObject(providers, dof), 'output file');
    return path;
  });
}

/** A provider declared in D, without #pragma D attributes: Unstable everywhere (libdtrace's default). */
const DECLARED = attr('Unstable', 'Unstable', 'Common');

/**
 * The providers' DOF description: each declared probe, once for each function holding sites of
 * it in the objects (as dof_probe_t names one function). A probe with no site is left out, and a
 * provider with none at all.
 */
function usdtProviders(providers: DeclaredProvider[], sites: ProbeSite[]): UsdtProvider[] {
  const out: UsdtProvider[] = [];
  for (const p of providers) {
    const probes: UsdtProbe[] = [];
    for (const probe of p.probes) {
      const byFunc = new Map<string, number[]>();
      for (const s of sites) {
        if (s.provider !== p.name || s.cName !== probe.cName) continue;
        byFunc.set(s.func, [...(byFunc.get(s.func) ?? []), s.offset]);
      }
      for (const [func, offsets] of byFunc) {
        probes.push({
          func, name: sdtName(probe.cName), addr: 0n,
          nativeTypes: probe.argTypes, translatedTypes: probe.translated?.types ?? probe.argTypes,
          argMap: probe.translated?.argMap ?? probe.argTypes.map((_, k) => k),
          offsets: offsets.sort((a, b) => a - b), enabledOffsets: [],
        });
      }
    }
    if (probes.length === 0) continue;
    const a = (part: string) => {
      const set = p.attributes.get(part);
      return (set !== undefined && parseAttribute(set)) || DECLARED;
    };
    out.push({ name: p.name, attributes: { provider: a('provider'), module: a('module'), function: a('function'), name: a('name'), args: a('args') }, probes });
  }
  return out;
}

/** An object named for -G must be a readable ELF file. */
function checkObject(path: string): void {
  const magic = Buffer.alloc(4);
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    throw new DefinitionError(`failed to open ${path}: No such file or directory`);
  }
  try {
    readSync(fd, magic, 0, 4, 0);
  } finally {
    closeSync(fd);
  }
  if (magic.toString('latin1') !== '\x7fELF') throw new DefinitionError(`failed to link ${path}: not an ELF file`);
}
