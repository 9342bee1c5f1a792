// tracefs: where the kernel publishes tracepoints, their ids and their record formats.
//
// On a fresh machine /sys/kernel/tracing is an empty directory; like other tracers we mount tracefs
// there ourselves (through mount(8), so no native code is needed).

import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { systemPaths } from '../sys/paths.js';

export class TracefsError extends Error {}

let cachedRoot: string | null = null;

/** A directory is a live tracefs when it holds the events tree. */
function isTracefs(dir: string): boolean {
  return existsSync(join(dir, 'events'));
}

/**
 * The tracefs mount point, mounting tracefs at /sys/kernel/tracing when no mounted one is found.
 * Throws a TracefsError saying what to do when that is impossible.
 */
export function tracefsRoot(): string {
  if (cachedRoot !== null) return cachedRoot;
  for (const dir of systemPaths.tracefs) {
    if (isTracefs(dir)) return (cachedRoot = dir);
  }
  // Mounted, but closed to this user (tracefs is mode 0700): say so, not that it is not mounted.
  const closed = systemPaths.tracefs.find((dir) => mountedTracefs().has(dir));
  if (closed) {
    throw new TracefsError(`tracefs at ${closed} is not readable by this user: tracing needs root, or read access to ${closed} with CAP_BPF and CAP_PERFMON`);
  }
  mountTracefs(systemPaths.tracefs[0]);
  return (cachedRoot = systemPaths.tracefs[0]);
}

/** The mount points of tracefs, from /proc/self/mountinfo (which every user may read). */
function mountedTracefs(): Set<string> {
  const out = new Set<string>();
  try {
    for (const line of readFileSync('/proc/self/mountinfo', 'utf8').split('\n')) {
      const [before, after] = line.split(' - ');
      if (after?.startsWith('tracefs ')) out.add(before.split(' ')[4]!);
    }
  } catch {
    // no mountinfo: nothing known to be mounted
  }
  return out;
}

/** Mount tracefs at `dir` (`mount -t tracefs nodev DIR`). */
export function mountTracefs(dir: string): void {
  if (!existsSync(dir)) {
    throw new TracefsError(
      `tracefs is not available: ${dir} does not exist (is the kernel built with CONFIG_TRACING?)`,
    );
  }
  try {
    execFileSync('mount', ['-t', 'tracefs', 'nodev', dir], { stdio: ['ignore', 'ignore', 'pipe'] });
  } catch (e) {
    const err = e as { stderr?: Buffer; message: string };
    const why = err.stderr?.toString().trim() || err.message;
    throw new TracefsError(
      `tracefs is not mounted and mounting it at ${dir} failed: ${why}\n` +
        `(run 'mount -t tracefs nodev ${dir}' as root, then try again)`,
    );
  }
  if (!isTracefs(dir)) {
    throw new TracefsError(`mounted tracefs at ${dir}, but it has no events directory`);
  }
}

function eventsDir(root: string): string {
  return join(root, 'events');
}

/** Names of directories in `dir`, sorted. withFileTypes avoids a stat per entry. */
function subdirectories(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name)
    .sort();
}

/** Tracepoint groups (events/*), sorted. */
export function listGroups(root = tracefsRoot()): string[] {
  return subdirectories(eventsDir(root));
}

/** Events of one group (events/GROUP/*), sorted; [] when the group does not exist. */
export function listEvents(group: string, root = tracefsRoot()): string[] {
  const dir = join(eventsDir(root), group);
  if (!existsSync(dir)) return [];
  return subdirectories(dir);
}

export function eventExists(group: string, event: string, root = tracefsRoot()): boolean {
  const dir = join(eventsDir(root), group, event);
  return existsSync(dir) && statSync(dir).isDirectory();
}

/** The tracepoint id (events/GROUP/EVENT/id), for perf_event_open's config. */
export function eventId(group: string, event: string, root = tracefsRoot()): number {
  const text = readFileSync(join(eventsDir(root), group, event, 'id'), 'utf8');
  return parseInt(text.trim(), 10);
}

/** One field of a tracepoint record, as its format file describes it. */
export interface FormatField {
  /** C type as declared, without the array suffix: 'unsigned int', 'char *', 'char' for char[16]. */
  type: string;
  name: string;
  offset: number;
  size: number;
  signed: boolean;
  /** Element count for fixed arrays (`char comm[16]` -> 16); 0 for `char buf[]`; absent otherwise. */
  arrayLength?: number;
  /**
   * `__data_loc` / `__rel_loc` fields: a u32 at `offset` whose low 16 bits are the data's offset
   * (from the record start, or from the end of this field for rel_loc) and high 16 bits its length.
   */
  dynamic?: 'data_loc' | 'rel_loc';
  /** The common_* header every record starts with. */
  common: boolean;
}

export interface EventFormat {
  name: string;
  id: number;
  fields: FormatField[]; // common fields first, in file order
}

/** Read and parse events/GROUP/EVENT/format. */
export function eventFormat(group: string, event: string, root = tracefsRoot()): EventFormat {
  return parseFormat(readFileSync(join(eventsDir(root), group, event, 'format'), 'utf8'));
}

const FIELD_LINE =
  /^\s*field:(.*?);\s*offset:(\d+);\s*size:(\d+);\s*signed:(\d+);/;

/** Parse the text of a tracefs format file. */
export function parseFormat(text: string): EventFormat {
  let name = '';
  let id = 0;
  let common = true;
  const fields: FormatField[] = [];
  for (const line of text.split('\n')) {
    if (line.startsWith('name:')) {
      name = line.slice(5).trim();
    } else if (line.startsWith('ID:')) {
      id = parseInt(line.slice(3).trim(), 10);
    } else if (line.trim() === '' && fields.length > 0) {
      common = false; // a blank line separates the common header from the event's own fields
    } else {
      const m = FIELD_LINE.exec(line);
      if (!m) continue;
      const decl = parseDeclaration(m[1]);
      fields.push({
        ...decl,
        offset: Number(m[2]),
        size: Number(m[3]),
        signed: m[4] === '1',
        common,
      });
    }
  }
  return { name, id, fields };
}

/** Split a field declaration like `unsigned long args[6]` into type, name and array suffix. */
function parseDeclaration(
  decl: string,
): Pick<FormatField, 'type' | 'name' | 'arrayLength' | 'dynamic'> {
  let text = decl.trim();
  let dynamic: FormatField['dynamic'];
  const loc = /^__(data|rel)_loc\s+/.exec(text);
  if (loc) {
    dynamic = loc[1] === 'data' ? 'data_loc' : 'rel_loc';
    text = text.slice(loc[0].length);
  }
  let arrayLength: number | undefined;
  const arr = /\[([^\]]*)\]\s*$/.exec(text);
  if (arr) {
    arrayLength = arr[1].trim() === '' ? 0 : Number(arr[1]);
    text = text.slice(0, arr.index).trim();
  }
  // The name is the last identifier; for `__data_loc char[] name` the brackets came before it.
  const nameMatch = /([A-Za-z_][A-Za-z0-9_]*)$/.exec(text);
  const name = nameMatch ? nameMatch[1] : text;
  let type = text.slice(0, text.length - name.length).trim();
  if (dynamic) {
    const inner = /\[\s*\]\s*$/.exec(type);
    if (inner) {
      type = type.slice(0, inner.index).trim();
      arrayLength = 0;
    }
  }
  const out: Pick<FormatField, 'type' | 'name' | 'arrayLength' | 'dynamic'> = {
    type: normalizeType(type),
    name,
  };
  if (arrayLength !== undefined) out.arrayLength = arrayLength;
  if (dynamic) out.dynamic = dynamic;
  return out;
}

/** Canonical spelling of a C type: single spaces, `char *`, `const char *const *`. */
export function normalizeType(type: string): string {
  const tokens = type.match(/\*|[^\s*]+/g) ?? [];
  let out = '';
  for (const tok of tokens) {
    if (out === '') out = tok;
    else if (tok === '*') out += out.endsWith('*') ? '*' : ' *';
    else out += out.endsWith('*') ? tok : ' ' + tok;
  }
  return out;
}

/** Every tracepoint the kernel offers for tracing (available_events), as [group, event] pairs. */
export function availableEvents(root = tracefsRoot()): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (const line of readFileSync(join(root, 'available_events'), 'utf8').split('\n')) {
    const colon = line.indexOf(':');
    if (colon > 0) out.push([line.slice(0, colon), line.slice(colon + 1)]);
  }
  return out;
}

/**
 * The dynamic events (kprobes, uprobes, eprobes, synthetic events) tracers have made, as
 * "GROUP/EVENT": from dynamic_events, else kprobe_events and uprobe_events. Lines read
 * "p:GROUP/EVENT TARGET" (or "r:", "s:", ...); one without a group is in the kind's default group.
 */
export function dynamicEvents(root = tracefsRoot()): Set<string> {
  const out = new Set<string>();
  const files = existsSync(join(root, 'dynamic_events')) ? ['dynamic_events'] : ['kprobe_events', 'uprobe_events'];
  for (const f of files) {
    let text = '';
    try {
      text = readFileSync(join(root, f), 'utf8');
    } catch {
      continue; // not there (or not readable): no dynamic events of that kind to leave out
    }
    for (const line of text.split('\n')) {
      const m = /^[a-z]\d*:(\S+)/.exec(line);
      if (m && m[1].includes('/')) out.add(m[1].split(/[ \t]/)[0]);
    }
  }
  return out;
}
