// USDT: the statically defined probes of user programs, from their SystemTap SDT notes.
//
//   PROVIDER<PID>:MODULE:FUNCTION:NAME    e.g. python1234:python3.11:_PyEval_EvalFrameDefault:function-entry
//
// Every object the process has mapped is searched for .note.stapsdt; each note is one probe site:
// a provider, a name (where DTrace's "__" stands for "-"), the address of the site's nop, an
// optional semaphore (a u16 the program tests before preparing the arguments) and the arguments'
// locations written as assembler operands ("-4@%edi 8@-16(%rbp) 4@$5"). Several sites with the same
// name in one function share one probe. Semaphores are handed to the kernel as the uprobe's
// reference counter (ref_ctr_offset), so the kernel raises them while dtrace has the probe in place
// and lowers them when it is gone.

import { matchField, isGlob } from './glob.js';
import { elfOf, mappedObjects, objectsMatching, pidOf, PID_ATTRIBUTES } from './pid.js';
import type { ElfFile } from '../sys/elf.js';
import type { ArgSource, Probe, ProbeArg, ProbeSpec, Provider, SemaphoreHold } from './provider.js';

/** x86_64 register names in SDT operands, by the 64-bit register they are part of. */
const REGISTER_ALIASES: Record<string, string> = {};
for (const [r64, r32, r16, r8] of [
  ['rax', 'eax', 'ax', 'al'], ['rbx', 'ebx', 'bx', 'bl'], ['rcx', 'ecx', 'cx', 'cl'], ['rdx', 'edx', 'dx', 'dl'],
  ['rsi', 'esi', 'si', 'sil'], ['rdi', 'edi', 'di', 'dil'], ['rbp', 'ebp', 'bp', 'bpl'], ['rsp', 'esp', 'sp', 'spl'],
]) {
  for (const n of [r64, r32, r16, r8]) REGISTER_ALIASES[n] = r64;
}
for (let i = 8; i <= 15; i++) for (const s of ['', 'd', 'w', 'b']) REGISTER_ALIASES[`r${i}${s}`] = `r${i}`;
REGISTER_ALIASES.rip = 'rip';

/**
 * One SDT argument specification ("-4@%edi", "8@-16(%rbp)", "4@$5", or a bare operand meaning 8
 * bytes) as an argument source; { kind: 'none' } for forms dtrace cannot read (symbol-relative,
 * indexed, high-byte registers).
 */
export function parseSdtArg(spec: string): ArgSource {
  const m = /^(-?)(1|2|4|8)@(.*)$/.exec(spec);
  const signed = m ? m[1] === '-' : false;
  const size = (m ? Number(m[2]) : 8) as 1 | 2 | 4 | 8;
  const operand = m ? m[3] : spec;
  let o: RegExpExecArray | null;
  if ((o = /^%(\w+)$/.exec(operand))) {
    const reg = REGISTER_ALIASES[o[1]];
    return reg ? { kind: 'register', reg, size, signed } : { kind: 'none' };
  }
  if ((o = /^\$(-?(?:0x[0-9a-fA-F]+|\d+))$/.exec(operand))) {
    let value = o[1].startsWith('-') ? -BigInt(o[1].slice(1)) : BigInt(o[1]);
    value = signed ? BigInt.asIntN(size * 8, value) : BigInt.asUintN(size * 8, value);
    return { kind: 'constant', value };
  }
  if ((o = /^(-?(?:0x[0-9a-fA-F]+|\d+))?\(%(\w+)\)$/.exec(operand))) {
    const reg = REGISTER_ALIASES[o[2]];
    if (!reg || reg === 'rip') return { kind: 'none' };
    const disp = o[1] === undefined ? 0 : o[1].startsWith('-') ? -Number(o[1].slice(1)) : Number(o[1]);
    return { kind: 'memory', reg, disp, size, signed };
  }
  return { kind: 'none' };
}

/** An SDT argument string's sources, arg0 first. */
export function parseSdtArgs(args: string): ArgSource[] {
  return args.trim() === '' ? [] : args.trim().split(/\s+/).map(parseSdtArg);
}

/** DTrace spells the "-" of a probe name "__" in C; SDT notes keep the C spelling. */
export function sdtProbeName(name: string): string {
  return name.replace(/__/g, '-');
}

/** A USDT provider name with its process: 'python1234' -> { provider: 'python', pid: 1234 }. */
function splitProviderName(providerName: string): { provider: string; pid: number } | null {
  const m = /^([A-Za-z_][A-Za-z0-9_]*?)([1-9]\d*)$/.exec(providerName);
  if (!m || isGlob(providerName)) return null;
  const pid = pidOf(providerName, m[1]);
  return pid === null ? null : { provider: m[1], pid };
}

export class UsdtProvider implements Provider {
  readonly name = 'usdt';
  readonly attributes = PID_ATTRIBUTES;

  list(): Probe[] {
    return [];
  }

  /**
   * Any NAME<digits> except pid<digits>, which belongs to the pid provider; and a glob
   * (postgresql*), which names the providers of the processes dtrace traces (-c, -p).
   */
  ownsProviderName(providerName: string): boolean {
    const p = splitProviderName(providerName);
    if (p !== null) return p.provider !== 'pid';
    return isGlob(providerName) && tracedProcesses.size > 0;
  }

  provide(spec: ProbeSpec): Probe[] {
    if (isGlob(spec.provider)) {
      return [...tracedProcesses].flatMap((pid) =>
        probesOf(pid, spec, (provider) => provider !== 'pid' && matchField(spec.provider, `${provider}${pid}`)));
    }
    const p = splitProviderName(spec.provider);
    if (!p || p.provider === 'pid') return [];
    return probesOf(p.pid, spec, (provider) => provider === p.provider);
  }
}

/** Processes dtrace started (-c) or grabbed (-p): a globbed provider name looks in these. */
const tracedProcesses = new Set<number>();

/** Tell the usdt provider about a process dtrace traces. */
export function announceProcess(pid: number): void {
  tracedProcesses.add(pid);
}

/** The USDT probes of process `pid` whose provider `wanted` accepts and that `spec` matches. */
function probesOf(pid: number, spec: ProbeSpec, wanted: (provider: string) => boolean): Probe[] {
  if (pid === process.pid) return [];
  let objects;
  try {
    objects = objectsMatching(mappedObjects(pid), spec.module === '' ? '*' : spec.module);
  } catch {
    return []; // no such process
  }
  const byKey = new Map<string, Probe>();
  for (const obj of objects) {
    const elf = elfOf(obj);
    if (!elf) continue;
    for (const note of elf.sdtNotes()) {
      if (!wanted(note.provider)) continue;
      const name = sdtProbeName(note.name);
      if (!matchField(spec.name, name)) continue;
      const func = elf.functionAt(note.pc)?.name ?? '';
      if (!matchField(spec.function, func)) continue;
      const offset = elf.fileOffset(note.pc);
      if (offset === null) continue;
      const refCtrOffset = note.semaphore !== 0n ? elf.fileOffset(note.semaphore) ?? undefined : undefined;
      const alsoRaise = note.provider === 'python' && note.name === 'function__entry' ? python311Tracing(elf) : undefined;
      const probe: Probe = {
        id: 0, provider: `${note.provider}${pid}`, module: obj.module, func, name,
        attach: { kind: 'uprobe', path: obj.path, offset, retprobe: false, pid, refCtrOffset, alsoRaise },
        args: parseSdtArgs(note.args).map((from, index): ProbeArg => ({ index, type: null, from })),
      };
      const key = `${probe.provider}:${probe.module}:${func}:${name}`;
      const first = byKey.get(key);
      if (!first) byKey.set(key, probe);
      else (first.sites ??= []).push({ attach: probe.attach, args: probe.args });
    }
  }
  return [...byKey.values()];
}

/**
 * CPython 3.11 reaches its function-entry site only on its tracing path, which it takes while the
 * `line` probe's semaphore is raised (cpython issue #98894, open for 3.11; 3.12 dropped the probe;
 * function-return fires as it should). So for 3.11 -- known by its Py_Version, which 3.11
 * introduced -- function-entry holds the line semaphore up too, by a uprobe on the object's .init
 * code (run once, when it is loaded) rather than on the line site, which would trap on every
 * line; the line site is the fallback.
 */
function python311Tracing(elf: ElfFile): SemaphoreHold | undefined {
  const version = elf.objectBytes('Py_Version');
  if (!version || version.length < 4 || version.readUInt32LE(0) >>> 16 !== 0x030b) return undefined;
  const line = elf.sdtNotes().find((n) => n.provider === 'python' && n.name === 'line' && n.semaphore !== 0n);
  const refCtrOffset = line ? elf.fileOffset(line.semaphore) : null;
  const lineSite = line ? elf.fileOffset(line.pc) : null;
  if (refCtrOffset === null || lineSite === null) return undefined;
  const init = elf.section('.init');
  const initSite = init && init.size > 0 ? elf.fileOffset(init.addr) : null;
  return { refCtrOffset, sites: initSite === null ? [lineSite] : [initSite, lineSite] };
}
