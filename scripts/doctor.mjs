#!/usr/bin/env node
// node-dtrace doctor: says in plain words which kernel facilities this machine offers for tracing.
// Plain Node, no build step. Reads /proc, /sys and tracefs; if the native addon is built it also
// makes a few real system calls through it (create a BPF map, load a BPF program, open a perf event).
//
// Exit status: 0 when the essentials (bpf(2), tracefs, perf events) are there, 1 otherwise.

import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { release } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const ADDON = join(ROOT, 'build', 'Release', 'dtrace_native.node');
const TRACEFS_PATHS = ['/sys/kernel/tracing', '/sys/kernel/debug/tracing'];

function read(path) {
  try {
    return readFileSync(path, 'utf8').trim();
  } catch {
    return null;
  }
}

function isDir(path) {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** The kernel's build configuration, from /proc/config.gz or /boot; null if neither is there. */
function kernelConfig() {
  let text = null;
  try {
    text = gunzipSync(readFileSync('/proc/config.gz')).toString('utf8');
  } catch {
    text = read(`/boot/config-${release()}`);
  }
  if (text === null) return null;
  const config = new Map();
  for (const line of text.split('\n')) {
    const set = /^(CONFIG_\w+)=(.*)$/.exec(line);
    if (set) config.set(set[1], set[2]);
    const unset = /^# (CONFIG_\w+) is not set$/.exec(line);
    if (unset) config.set(unset[1], 'n');
  }
  return config;
}

const config = kernelConfig();
/** 'y'/'m'/'n' for a kernel option, or null when the configuration is not readable. */
function option(name) {
  if (config === null) return null;
  return config.get(name) ?? 'n';
}
function configNote(name) {
  const v = option(name);
  return v === null ? '' : ` (${name}=${v})`;
}

const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;

/**
 * Run real system calls through the native addon in a child process, so a crash or a missing
 * symbol there cannot take the doctor down. Returns null when the addon is not built.
 */
function addonProbe() {
  if (!existsSync(ADDON)) return null;
  const script = `
    const results = {};
    let n;
    try { n = require(process.argv[1]); } catch (e) { console.log(JSON.stringify({ load: String(e.message) })); process.exit(0); }
    results.load = 'ok';
    const attempt = (key, fn) => {
      if (typeof fn !== 'function') { results[key] = 'not exported by this addon'; return; }
      try { results[key] = fn(); } catch (e) { results[key] = 'failed: ' + e.message; }
    };
    attempt('map', n.mapCreate && (() => {
      const fd = n.mapCreate({ type: 2 /* BPF_MAP_TYPE_ARRAY */, keySize: 4, valueSize: 8, maxEntries: 1 });
      n.close(fd); return 'ok';
    }));
    attempt('prog', n.progLoad && (() => {
      // r0 = 0; exit
      const insns = Buffer.from([0xb7,0,0,0,0,0,0,0, 0x95,0,0,0,0,0,0,0]);
      const fd = n.progLoad({ type: 5 /* BPF_PROG_TYPE_TRACEPOINT */, insns, license: 'GPL' });
      n.close(fd); return 'ok';
    }));
    attempt('perf', n.perfEventOpen && (() => {
      const fd = n.perfEventOpen({ type: 1 /* PERF_TYPE_SOFTWARE */, config: 0 /* CPU_CLOCK */,
        samplePeriod: 1000000, pid: -1, cpu: 0, disabled: true });
      n.close(fd); return 'ok';
    }));
    console.log(JSON.stringify(results));
  `;
  try {
    const out = execFileSync(process.execPath, ['-e', script, ADDON], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 20000,
    });
    return JSON.parse(out.trim().split('\n').pop());
  } catch (e) {
    return { load: `the test process failed: ${e.message.split('\n')[0]}` };
  }
}

// ---- the checks: each returns { title, ok: true | false | null (unknown/optional), lines } ----

function checkPrivileges() {
  return {
    title: 'Privileges',
    ok: isRoot,
    lines: [
      isRoot
        ? 'Running as root: loading BPF programs and attaching to kernel events is allowed.'
        : 'Not running as root: the kernel will refuse most tracing. Run dtrace as root.',
    ],
  };
}

function checkBpf(addon) {
  const lines = [];
  const unpriv = read('/proc/sys/kernel/unprivileged_bpf_disabled');
  const hasBpf = unpriv !== null || option('CONFIG_BPF_SYSCALL') === 'y';
  if (!hasBpf) {
    lines.push('The kernel has no bpf(2) system call' + configNote('CONFIG_BPF_SYSCALL') + '.');
    lines.push('dtrace cannot run programs in this kernel.');
    return { title: 'bpf(2)', ok: false, lines };
  }
  lines.push('The kernel has the bpf(2) system call' + configNote('CONFIG_BPF_SYSCALL') + '.');
  if (unpriv !== null) {
    const meaning = {
      0: 'users without privileges may use it too',
      1: 'only privileged users may use it (fixed until reboot)',
      2: 'only privileged users may use it',
    };
    lines.push(`unprivileged_bpf_disabled=${unpriv}: ${meaning[unpriv] ?? 'unknown setting'}.`);
  }
  const jit = read('/proc/sys/net/core/bpf_jit_enable');
  if (jit !== null) {
    lines.push(
      jit === '0'
        ? 'The BPF JIT is off: programs are interpreted (slower).'
        : 'The BPF JIT compiler is on: programs run as native code.',
    );
  }
  let ok = isRoot ? true : null;
  if (addon === null) {
    lines.push(`The native addon is not built (${ADDON}); run 'npm install' to build it.`);
    lines.push('So bpf(2) itself was not tried.');
  } else if (addon.load !== 'ok') {
    lines.push(`The native addon did not load: ${addon.load}`);
    ok = null;
  } else {
    const said = (r) => (r === 'ok' ? 'worked' : r);
    lines.push(`Through the native addon: creating a BPF map ${said(addon.map)};`);
    lines.push(`loading a BPF tracepoint program ${said(addon.prog)}.`);
    ok = addon.map === 'ok' && addon.prog === 'ok';
  }
  return { title: 'bpf(2)', ok, lines };
}

function checkBtf() {
  const path = '/sys/kernel/btf/vmlinux';
  if (!existsSync(path)) {
    return {
      title: 'BTF (kernel type information)',
      ok: false,
      lines: [
        `${path} is missing${configNote('CONFIG_DEBUG_INFO_BTF')}:`,
        'kernel types (e.g. struct task_struct for curthread) and fbt argument types are unavailable.',
      ],
    };
  }
  const kib = Math.round(statSync(path).size / 1024);
  const modules = readdirSync('/sys/kernel/btf').filter((n) => n !== 'vmlinux').length;
  return {
    title: 'BTF (kernel type information)',
    ok: true,
    lines: [
      `${path} is there (${kib} KiB), with BTF for ${modules} loaded module${modules === 1 ? '' : 's'}:`,
      'D programs can use kernel types.',
    ],
  };
}

function tracefsMount() {
  return TRACEFS_PATHS.find((dir) => isDir(join(dir, 'events'))) ?? null;
}

function checkTracefs() {
  const title = 'tracefs and tracepoints';
  const root = tracefsMount();
  if (root === null) {
    const supported = (read('/proc/filesystems') ?? '').split('\n').some((l) => /\btracefs$/.test(l));
    return {
      title,
      ok: supported ? null : false,
      lines: supported
        ? [
            'The kernel supports tracefs but it is not mounted yet.',
            'dtrace mounts it at /sys/kernel/tracing itself when it first needs it',
            "(or run 'mount -t tracefs nodev /sys/kernel/tracing').",
          ]
        : ['The kernel has no tracefs: no tracepoints, so no syscall or sdt probes.'],
    };
  }
  const events = join(root, 'events');
  let tracepoints = 0;
  // The ftrace group holds the tracer's own record types, not tracepoints one can attach to.
  const groups = readdirSync(events, { withFileTypes: true }).filter(
    (d) => d.isDirectory() && d.name !== 'ftrace',
  );
  for (const g of groups) {
    tracepoints += readdirSync(join(events, g.name), { withFileTypes: true }).filter((d) =>
      d.isDirectory(),
    ).length;
  }
  const sys = isDir(join(events, 'syscalls')) ? readdirSync(join(events, 'syscalls')) : [];
  const entries = sys.filter((n) => n.startsWith('sys_enter_')).length;
  const exits = sys.filter((n) => n.startsWith('sys_exit_')).length;
  const lines = [
    `tracefs is mounted at ${root}.`,
    `${tracepoints} tracepoints in ${groups.length} groups (sdt provider).`,
  ];
  if (entries + exits > 0) {
    lines.push(
      `${entries + exits} of them are system call tracepoints: ${entries} system calls can be traced ` +
        `at entry and ${exits} at return (syscall provider).`,
    );
  } else {
    lines.push(`No system call tracepoints${configNote('CONFIG_FTRACE_SYSCALLS')}: no syscall provider.`);
  }
  return { title, ok: true, lines };
}

function checkPerf(addon) {
  const paranoid = read('/proc/sys/kernel/perf_event_paranoid');
  if (paranoid === null) {
    return {
      title: 'perf events',
      ok: false,
      lines: [`The kernel has no perf events${configNote('CONFIG_PERF_EVENTS')}: no profile provider, no tracepoint attachment.`],
    };
  }
  const level = Number(paranoid);
  const meaning =
    level <= -1
      ? 'no restrictions'
      : level === 0
        ? 'users may watch CPU-wide events but not raw tracepoints'
        : level === 1
          ? 'users may watch kernel and user events of their own processes'
          : level === 2
            ? 'users may watch only user-space events of their own processes'
            : 'users may not use perf events at all';
  const lines = [
    'The kernel has perf events (timers for profile-N/tick-N, attachment of tracepoints and uprobes).',
    `perf_event_paranoid=${paranoid}: ${meaning}${isRoot ? '; root is not limited by it' : ''}.`,
  ];
  let ok = isRoot ? true : level <= 0 ? true : null;
  if (addon && addon.load === 'ok') {
    lines.push(
      `Through the native addon: opening a CPU clock event ${addon.perf === 'ok' ? 'worked' : addon.perf}.`,
    );
    ok = addon.perf === 'ok';
  }
  return { title: 'perf events', ok, lines };
}

function checkUprobes() {
  const pmu = '/sys/bus/event_source/devices/uprobe';
  const root = tracefsMount();
  const events = root && existsSync(join(root, 'uprobe_events'));
  if (isDir(pmu)) {
    return {
      title: 'uprobes (user-space probes)',
      ok: true,
      lines: [
        `The uprobe PMU is there (${pmu}, type ${read(join(pmu, 'type'))}):`,
        'pid and USDT probes can be placed in programs' +
          (events ? '; tracefs uprobe_events is there too.' : '.'),
      ],
    };
  }
  return {
    title: 'uprobes (user-space probes)',
    ok: false,
    lines: [`No uprobe PMU${configNote('CONFIG_UPROBE_EVENTS')}: no pid or USDT probes.`],
  };
}

function checkKprobes() {
  const pmu = '/sys/bus/event_source/devices/kprobe';
  const root = tracefsMount();
  const events = root !== null && existsSync(join(root, 'kprobe_events'));
  if (isDir(pmu) || events) {
    return {
      title: 'kprobes (kernel function probes)',
      ok: true,
      lines: [
        `kprobes are there (${[isDir(pmu) ? pmu : null, events ? 'tracefs kprobe_events' : null]
          .filter(Boolean)
          .join(', ')}): fbt probes can use them.`,
      ],
    };
  }
  return {
    title: 'kprobes (kernel function probes)',
    ok: null,
    lines: [
      `No kprobes${configNote('CONFIG_KPROBES')}: ${pmu} and tracefs kprobe_events are missing,`,
      'so fbt cannot use kprobes and needs fentry/fexit instead.',
    ],
  };
}

function checkFentry() {
  const hints = [];
  if (existsSync('/sys/kernel/btf/vmlinux')) hints.push('BTF is present');
  const direct = option('CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS');
  if (direct !== null) {
    hints.push(`CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS=${direct}`);
  }
  return {
    title: 'fentry/fexit (BPF trampolines)',
    ok: null,
    lines: [
      'Whether the kernel accepts fentry/fexit programs is known only when one is loaded:',
      'dtrace finds out when an fbt probe is enabled and says so clearly if the kernel refuses.' +
        (hints.length ? ` (${hints.join(', ')}.)` : ''),
    ],
  };
}

// ---- report ----

const addon = addonProbe();
const checks = [
  checkPrivileges(),
  checkBpf(addon),
  checkBtf(),
  checkTracefs(),
  checkPerf(addon),
  checkUprobes(),
  checkKprobes(),
  checkFentry(),
];

const mark = (ok) => (ok === true ? 'yes' : ok === false ? 'NO ' : ' ? ');
console.log(`node-dtrace doctor: kernel ${release()}, node ${process.version}\n`);
for (const c of checks) {
  console.log(`[${mark(c.ok)}] ${c.title}`);
  for (const line of c.lines) console.log(`      ${line}`);
  console.log('');
}

const essential = [checks[1], checks[3], checks[4]];
const ready = essential.every((c) => c.ok !== false);
console.log(
  ready
    ? 'dtrace can run here: BEGIN/END, profile, syscall and sdt probes are available' +
        (checks[5].ok ? ', and pid/USDT probes.' : '.')
    : 'dtrace cannot run here until the facilities marked NO are available.',
);
process.exit(ready ? 0 : 1);
