// Typed access to the native addon (native/*.cc): bpf(2), perf_event_open(2), mmap'ed perf rings,
// poll on a worker thread, and plain open/ioctl. The addon does system calls only; the few
// decisions that need reading the system (the uprobe PMU's retprobe bit) are made here.
//
// Failed system calls throw a NativeError: message "bpf(BPF_MAP_CREATE): Operation not permitted",
// .code 'EPERM', .errno 1, .syscall 'bpf(BPF_MAP_CREATE)'. A rejected program also carries .log,
// the verifier's text. Every fd the addon creates is close-on-exec.

import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface NativeError extends Error {
  code: string;
  errno: number;
  syscall: string;
  /** Verifier (or BTF) log of a failed progLoad/btfLoad. */
  log?: string;
}

/** True if `e` is an error from a failed system call, optionally with the given errno name. */
export function isNativeError(e: unknown, code?: string): e is NativeError {
  return (
    e instanceof Error &&
    typeof (e as NativeError).errno === 'number' &&
    (code === undefined || (e as NativeError).code === code)
  );
}

export interface MapCreateOptions {
  type: number; // BPF_MAP_TYPE_*
  keySize: number;
  valueSize: number;
  maxEntries: number;
  flags?: number; // BPF_F_*
  name?: string; // up to 15 characters of [A-Za-z0-9_.]
  innerMapFd?: number; // for map-in-map types
  btfFd?: number;
  btfKeyTypeId?: number;
  btfValueTypeId?: number;
}

export interface ProgLoadOptions {
  type: number; // BPF_PROG_TYPE_*
  insns: Buffer; // 8 bytes per instruction
  license: string;
  name?: string;
  expectedAttachType?: number;
  /** Ask for a verifier log even on success (discarded unless onLog takes it); failures always get one. */
  logLevel?: number;
  logSize?: number;
  /** Called with an accepted program's verifier log, when logLevel asks for one. */
  onLog?: (log: string) => void;
  flags?: number; // BPF_F_* prog_flags
  attachBtfId?: number;
  kernVersion?: number;
}

export interface PerfEventOpenOptions {
  type: number; // PERF_TYPE_* or a dynamic PMU type (e.g. /sys/bus/event_source/devices/uprobe/type)
  config: bigint | number;
  config1?: bigint | number;
  config2?: bigint | number;
  samplePeriod?: bigint | number;
  sampleFreq?: number; // sets attr.freq; takes precedence over samplePeriod
  sampleType?: number; // PERF_SAMPLE_*; perfBufferRead expects exactly PERF_SAMPLE_RAW
  wakeupEvents?: number;
  /** Wake readers once this many bytes wait (instead of wakeupEvents). */
  wakeupWatermark?: number;
  pid: number; // -1 for all processes
  cpu: number; // -1 for any CPU
  groupFd?: number;
  flags?: number; // PERF_FLAG_*; PERF_FLAG_FD_CLOEXEC is always added
  /** Count only in the kernel (excludeUser) or only in user mode (excludeKernel). */
  excludeUser?: boolean;
  excludeKernel?: boolean;
  /** uprobe PMU: the binary's path (config1) and the probe's file offset (config2). */
  uprobePath?: string;
  probeOffset?: bigint | number;
  /** uprobe PMU: a return probe (sets the bit the PMU declares in format/retprobe). */
  retprobe?: boolean;
  disabled?: boolean;
}

export interface PerfBufferData {
  /** PERF_SAMPLE_RAW payloads, oldest first, each of the u32 size the kernel reports. */
  samples: Buffer[];
  /** Records the kernel dropped (PERF_RECORD_LOST) since the previous read. */
  lost: number;
}

/** The addon's own functions, as exported by native/*.cc. */
interface Addon {
  mapCreate(o: MapCreateOptions): number;
  mapLookup(fd: number, key: Buffer, value: Buffer, flags?: number): boolean;
  mapUpdate(fd: number, key: Buffer, value: Buffer, flags?: number): void;
  mapDelete(fd: number, key: Buffer): boolean;
  /** Atomically read and delete an entry (false: there was none). */
  mapLookupAndDelete(fd: number, key: Buffer, value: Buffer): boolean;
  mapNextKey(fd: number, key: Buffer | null, next: Buffer): boolean;
  mapLookupBatch(
    fd: number,
    inBatch: Buffer | null,
    outBatch: Buffer,
    keys: Buffer,
    values: Buffer,
    count: number,
    elemFlags?: number,
  ): { count: number; more: boolean };
  mapFreeze(fd: number): void;
  progLoad(o: ProgLoadOptions): number;
  progTestRun(fd: number, ctx: Buffer | null, flags?: number, cpu?: number): number;
  rawTracepointOpen(name: string, progFd: number): number;
  btfLoad(data: Buffer): number;
  progGetNextId(startId: number): number | null;
  mapGetNextId(startId: number): number | null;
  progVerifiedInsns(fd: number): number;
  /** Firings the kernel skipped because a BPF program was already running on that CPU. */
  progRecursionMisses(fd: number): number;
  perfEventOpen(o: Omit<PerfEventOpenOptions, 'retprobe'>): number;
  perfEventSetBpf(fd: number, progFd: number): void;
  uprobeMultiAttach(progFd: number, path: string, offsets: Buffer, refCtrOffsets: Buffer | null, cookies: Buffer | null, pid: number, retprobe: boolean): number;
  perfEventEnable(fd: number): void;
  perfEventDisable(fd: number): void;
  perfBufferOpen(fd: number, pages: number): number;
  perfBufferRead(handle: number): { bytes: Buffer; bounds: Uint32Array; lost: number };
  perfBufferClose(handle: number): void;
  waitReadable(fds: number[], timeoutMs: number): Promise<number[]>;
  open(path: string, flags: number): number;
  ioctl(fd: number, request: number, buf: Buffer): number;
  close(fd: number): void;
  pageSize(): number;
  possibleCpus(): number;
}

/** The directory holding package.json, found by walking up from this file (src/ or dist/). */
function projectRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    const parent = dirname(dir);
    if (parent === dir) throw new Error('node-dtrace: cannot find package.json above ' + dir);
    dir = parent;
  }
}

let loaded: Addon | undefined;

/**
 * The addon could not be loaded: neither built here (build/Release, by node-gyp at install or by
 * hand) nor prebuilt for this machine in the package (prebuilds/, scripts/prebuild.mjs).
 * `message` says what to run.
 */
export class AddonUnavailableError extends Error {
  constructor(readonly root: string, readonly reason: string, stale = false) {
    super(
      `the native addon is ${stale ? 'out of date (built from older sources)' : `not built for this machine (${process.platform}-${process.arch}, Node.js ${process.versions.node})`}: ` +
      `build it with "npx node-gyp rebuild" in ${root} (it needs g++, make and python3)`,
    );
  }
}

/** The addon interface this code expects (kInterface in native/addon.cc). */
const ADDON_INTERFACE = 3;

/** Loads the addon on first use, so merely importing this module works where it is not built. */
function addon(): Addon {
  if (loaded) return loaded;
  const root = projectRoot();
  // node-gyp-build: build/Release when node-gyp built it, else the package's prebuilt one. The
  // one node-gyp built is opened directly, as node-gyp-build would choose it first: its search --
  // its own package, ours, the directories -- was a few milliseconds of every dtrace's start-up.
  const built = join(root, 'build', 'Release', 'dtrace_native.node');
  const direct = existsSync(built);
  const require = createRequire(import.meta.url);
  let path = built;
  if (!direct) {
    try {
      path = (require('node-gyp-build') as { resolve(dir: string): string }).resolve(root);
    } catch (e) {
      throw new AddonUnavailableError(root, (e as Error).message);
    }
  }
  try {
    if (direct) {
      const m = { exports: {} as Addon };
      process.dlopen(m, path);
      loaded = m.exports;
    } else loaded = require(path) as Addon;
  } catch (e) {
    // A prebuilt addon this machine cannot load (another C library, say).
    throw new AddonUnavailableError(root, `${path}: ${(e as Error).message}`);
  }
  if ((loaded as { interface?: number }).interface !== ADDON_INTERFACE) {
    const stale = loaded;
    loaded = undefined;
    throw new AddonUnavailableError(root, `${path}: interface ${(stale as { interface?: number }).interface ?? 1}, not ${ADDON_INTERFACE}`, true);
  }
  return loaded;
}

/** Why the addon cannot be loaded, or null when it can. */
export function addonUnavailable(): AddonUnavailableError | null {
  try {
    addon();
    return null;
  } catch (e) {
    if (e instanceof AddonUnavailableError) return e;
    throw e;
  }
}

const UPROBE_RETPROBE_FORMAT = '/sys/bus/event_source/devices/uprobe/format/retprobe';

/** The config bit the uprobe PMU uses for return probes ("config:0" in sysfs). */
export function uprobeRetprobeBit(formatFile = UPROBE_RETPROBE_FORMAT): bigint {
  const text = readFileSync(formatFile, 'utf8').trim();
  const m = /^config:(\d+)$/.exec(text);
  if (!m) throw new Error(`unexpected uprobe retprobe format "${text}" in ${formatFile}`);
  return 1n << BigInt(m[1]);
}

export const native = {
  // --- bpf(2) ---
  /** BPF_MAP_CREATE; returns the map fd. */
  mapCreate: (o: MapCreateOptions): number => addon().mapCreate(o),
  /** BPF_MAP_LOOKUP_ELEM into `value`; false when the key is absent. */
  mapLookup: (fd: number, key: Buffer, value: Buffer, flags = 0): boolean =>
    addon().mapLookup(fd, key, value, flags),
  /** BPF_MAP_UPDATE_ELEM with BPF_ANY/BPF_NOEXIST/BPF_EXIST in flags. */
  mapUpdate: (fd: number, key: Buffer, value: Buffer, flags = 0): void =>
    addon().mapUpdate(fd, key, value, flags),
  /** BPF_MAP_DELETE_ELEM; false when the key was absent. */
  mapDelete: (fd: number, key: Buffer): boolean => addon().mapDelete(fd, key),
  mapLookupAndDelete: (fd: number, key: Buffer, value: Buffer): boolean => addon().mapLookupAndDelete(fd, key, value),
  /** BPF_MAP_GET_NEXT_KEY: the first key when `key` is null; false after the last one. */
  mapNextKey: (fd: number, key: Buffer | null, next: Buffer): boolean =>
    addon().mapNextKey(fd, key, next),
  /**
   * BPF_MAP_LOOKUP_BATCH of up to `count` elements. Start with inBatch null, then pass the
   * previous outBatch (at least max(keySize, 4) bytes). Per-CPU maps fill values with
   * count * possibleCpus() * roundup(valueSize, 8) bytes. `more` is false once the map is done.
   * Hash maps fail with ENOSPC if `count` is smaller than one bucket's elements.
   */
  mapLookupBatch: (
    fd: number,
    inBatch: Buffer | null,
    outBatch: Buffer,
    keys: Buffer,
    values: Buffer,
    count: number,
  ): { count: number; more: boolean } =>
    addon().mapLookupBatch(fd, inBatch, outBatch, keys, values, count),
  /** BPF_MAP_FREEZE: no more writes from userspace. */
  mapFreeze: (fd: number): void => addon().mapFreeze(fd),
  /** BPF_PROG_LOAD; on failure the NativeError carries .log with the verifier's text. */
  progLoad: (o: ProgLoadOptions): number => addon().progLoad(o),
  /** BPF_PROG_TEST_RUN; returns the program's return value. */
  progTestRun: (fd: number, ctx: Buffer | null, flags = 0, cpu = 0): number =>
    addon().progTestRun(fd, ctx, flags, cpu),
  /** BPF_RAW_TRACEPOINT_OPEN: a raw tracepoint program on tracepoint `name`; close the fd to detach. */
  rawTracepointOpen: (name: string, progFd: number): number => addon().rawTracepointOpen(name, progFd),
  /** BPF_BTF_LOAD of raw BTF (header, types, strings). */
  btfLoad: (data: Buffer): number => addon().btfLoad(data),
  /** BPF_PROG_GET_NEXT_ID: ids of all loaded programs, for leak checks; null after the last. */
  progGetNextId: (startId: number): number | null => addon().progGetNextId(startId),
  /** BPF_MAP_GET_NEXT_ID, likewise for maps. */
  mapGetNextId: (startId: number): number | null => addon().mapGetNextId(startId),
  /** The instructions the verifier processed to accept a loaded program (bpf_prog_info.verified_insns). */
  progVerifiedInsns: (fd: number): number => addon().progVerifiedInsns(fd),
  progRecursionMisses: (fd: number): number => addon().progRecursionMisses(fd),

  // --- perf events ---
  /** perf_event_open(2), close-on-exec; returns the event fd. */
  perfEventOpen: (o: PerfEventOpenOptions): number => {
    const { retprobe, ...rest } = o;
    if (retprobe) rest.config = BigInt(rest.config) | uprobeRetprobeBit();
    return addon().perfEventOpen(rest);
  },
  /** PERF_EVENT_IOC_SET_BPF: run the program whenever the event fires. */
  perfEventSetBpf: (fd: number, progFd: number): void => addon().perfEventSetBpf(fd, progFd),
  perfEventEnable: (fd: number): void => addon().perfEventEnable(fd),
  /**
   * BPF_LINK_CREATE with BPF_TRACE_UPROBE_MULTI (Linux 6.6+): the program (loaded with that
   * expected attach type) on every file offset of `path` at once; offsets, refCtrOffsets and
   * cookies are u64 LE arrays. pid 0: every process. Returns the link fd; closing it detaches all.
   */
  uprobeMultiAttach: (progFd: number, path: string, offsets: Buffer, refCtrOffsets: Buffer | null, cookies: Buffer | null, pid: number, retprobe: boolean): number =>
    addon().uprobeMultiAttach(progFd, path, offsets, refCtrOffsets, cookies, pid, retprobe),
  perfEventDisable: (fd: number): void => addon().perfEventDisable(fd),
  /** mmap 1 + pages (a power of two) pages of the event's ring; returns a handle. */
  perfBufferOpen: (fd: number, pages: number): number => addon().perfBufferOpen(fd, pages),
  /** Consumes every complete record in the ring (events opened with PERF_SAMPLE_RAW only). */
  perfBufferRead: (handle: number): PerfBufferData => {
    // The addon returns every sample's bytes in one buffer: each sample is a view of it.
    const { bytes, bounds, lost } = addon().perfBufferRead(handle);
    const samples = new Array<Buffer>(bounds.length / 2);
    for (let i = 0; i < samples.length; i++) samples[i] = bytes.subarray(bounds[2 * i], bounds[2 * i] + bounds[2 * i + 1]);
    return { samples, lost };
  },
  /** munmap the ring; the event fd stays open until close(). */
  perfBufferClose: (handle: number): void => addon().perfBufferClose(handle),
  /** poll(2) on a worker thread; resolves with the fds ready to read (timeoutMs < 0: no limit). */
  waitReadable: (fds: number[], timeoutMs: number): Promise<number[]> =>
    addon().waitReadable(fds, timeoutMs),

  // --- plain fds ---
  close: (fd: number): void => addon().close(fd),
  /** open(2) with O_CLOEXEC added (for a DTrace device such as /dev/dtrace/dtrace). */
  open: (path: string, flags: number): number => addon().open(path, flags),
  /** ioctl(2) with a pointer to `buf`; returns the ioctl's result. */
  ioctl: (fd: number, request: number, buf: Buffer): number => addon().ioctl(fd, request, buf),
  pageSize: (): number => addon().pageSize(),
  /** Possible CPUs: the number of per-CPU slots in per-CPU map values. */
  possibleCpus: (): number => addon().possibleCpus(),
};

export type Native = typeof native;

// Kernel constants used with the functions above (linux/bpf.h, linux/perf_event.h).
export const BPF_MAP_TYPE = {
  HASH: 1,
  ARRAY: 2,
  PROG_ARRAY: 3,
  PERF_EVENT_ARRAY: 4,
  PERCPU_HASH: 5,
  PERCPU_ARRAY: 6,
  LRU_HASH: 9,
  LRU_PERCPU_HASH: 10,
  RINGBUF: 27,
} as const;

export const BPF_PROG_TYPE = {
  SOCKET_FILTER: 1,
  KPROBE: 2,
  TRACEPOINT: 5,
  PERF_EVENT: 7,
  RAW_TRACEPOINT: 17,
} as const;

export const BPF_ANY = 0;
export const BPF_NOEXIST = 1;
export const BPF_EXIST = 2;
export const BPF_F_NO_PREALLOC = 1;
/** bpf_perf_event_output's flags: write to the current CPU's slot of the perf event array. */
export const BPF_F_CURRENT_CPU = 0xffffffff;
export const BPF_F_TEST_RUN_ON_CPU = 1;

export const PERF_TYPE = { HARDWARE: 0, SOFTWARE: 1, TRACEPOINT: 2 } as const;
export const PERF_COUNT_SW = { CPU_CLOCK: 0, TASK_CLOCK: 1, BPF_OUTPUT: 10 } as const;
export const PERF_SAMPLE_RAW = 1 << 10;
