import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import {
  listHeader,
  listProbes,
  listRow,
  parseProbeSpecifier,
  probeInfo,
  type ListResult,
} from '../../src/providers/listing.js';
import { parseProfileName } from '../../src/providers/profile.js';
import type { Probe, ProbeSpec } from '../../src/providers/provider.js';
import { ProbeRegistry, defaultProviders } from '../../src/providers/registry.js';
import {
  eventFormat,
  eventId,
  listEvents,
  listGroups,
  mountTracefs,
  normalizeType,
  parseFormat,
  tracefsRoot,
} from '../../src/providers/tracefs.js';

const spec = (d: string): ProbeSpec => {
  const [provider, module, fn, name] = d.split(':');
  return { provider, module, function: fn, name };
};

const textOf = (r: ListResult): string => {
  if ('error' in r) throw new Error(r.error);
  return r.text;
};

let registry: ProbeRegistry;
beforeAll(() => {
  registry = new ProbeRegistry();
});

describe('tracefs', () => {
  test('is found (or mounted) and lists the syscalls group', () => {
    const root = tracefsRoot();
    expect(readdirSync(join(root, 'events')).length).toBeGreaterThan(0);
    expect(listGroups()).toContain('syscalls');
    expect(listEvents('syscalls').length).toBeGreaterThan(700);
    expect(listEvents('no_such_group')).toEqual([]);
  });

  test('mounting over a missing directory fails with a clear error', () => {
    expect(() => mountTracefs('/nonexistent/tracing')).toThrow(/tracefs is not available/);
  });

  test('reads an event id', () => {
    const id = eventId('syscalls', 'sys_enter_read');
    expect(id).toBeGreaterThan(0);
    expect(eventFormat('syscalls', 'sys_enter_read').id).toBe(id);
  });

  test('parses sys_enter_read: fd, buf, count after __syscall_nr', () => {
    const f = eventFormat('syscalls', 'sys_enter_read');
    expect(f.name).toBe('sys_enter_read');
    const own = f.fields.filter((x) => !x.common);
    expect(own.map((x) => x.name)).toEqual(['__syscall_nr', 'fd', 'buf', 'count']);
    expect(own[0]).toMatchObject({ type: 'int', offset: 8, size: 4, signed: true });
    expect(own[1]).toMatchObject({ type: 'unsigned int', offset: 16, size: 8, signed: false });
    expect(own[2]).toMatchObject({ type: 'char *', offset: 24, size: 8, signed: false });
    expect(own[3]).toMatchObject({ type: 'size_t', offset: 32, size: 8, signed: false });
    const common = f.fields.filter((x) => x.common).map((x) => x.name);
    expect(common).toEqual(['common_type', 'common_flags', 'common_preempt_count', 'common_pid']);
  });

  test('parses arrays and __data_loc fields', () => {
    const text = [
      'name: example',
      'ID: 7',
      'format:',
      '\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;',
      '',
      '\tfield:unsigned long args[6];\toffset:16;\tsize:48;\tsigned:0;',
      '\tfield:__data_loc char[] name;\toffset:64;\tsize:4;\tsigned:0;',
      '\tfield:char comm[16];\toffset:68;\tsize:16;\tsigned:0;',
      '\tfield:const char *const * argv;\toffset:88;\tsize:8;\tsigned:0;',
      '',
      'print fmt: "x"',
    ].join('\n');
    const f = parseFormat(text);
    expect(f).toMatchObject({ name: 'example', id: 7 });
    expect(f.fields[0]).toMatchObject({ name: 'common_type', common: true });
    expect(f.fields[1]).toEqual({
      type: 'unsigned long', name: 'args', offset: 16, size: 48, signed: false,
      arrayLength: 6, common: false,
    });
    expect(f.fields[2]).toEqual({
      type: 'char', name: 'name', offset: 64, size: 4, signed: false,
      arrayLength: 0, dynamic: 'data_loc', common: false,
    });
    expect(f.fields[3]).toMatchObject({ type: 'char', name: 'comm', arrayLength: 16 });
    expect(f.fields[4]).toMatchObject({ type: 'const char *const *', name: 'argv' });
  });

  test('parses the real raw_syscalls/sys_enter and sched_process_exec formats', () => {
    const raw = eventFormat('raw_syscalls', 'sys_enter').fields.find((x) => x.name === 'args');
    expect(raw).toMatchObject({ type: 'unsigned long', arrayLength: 6, size: 48 });
    const exec = eventFormat('sched', 'sched_process_exec').fields.find((x) => x.name === 'filename');
    expect(exec).toMatchObject({ type: 'char', dynamic: 'data_loc', size: 4 });
  });

  test('normalizes C type spelling', () => {
    expect(normalizeType('char * ')).toBe('char *');
    expect(normalizeType('const  char *const *')).toBe('const char *const *');
    expect(normalizeType('char**')).toBe('char **');
  });
});

describe('probe registry', () => {
  test('dtrace BEGIN, END, ERROR are probes 1, 2, 3', () => {
    expect(registry.byId(1)).toMatchObject({ provider: 'dtrace', module: '', func: '', name: 'BEGIN' });
    expect(registry.byId(2)?.name).toBe('END');
    expect(registry.byId(3)?.name).toBe('ERROR');
    expect(registry.byId(3)?.attach).toEqual({ kind: 'dtrace', which: 'ERROR' });
  });

  test('lists more than 700 syscall probes', () => {
    const t0 = performance.now();
    const fresh = new ProbeRegistry();
    const all = fresh.all();
    const ms = performance.now() - t0;
    // Only fbt may be missing, and only where the kernel lacks kprobes; it says why.
    expect(fresh.problems.filter((p) => p.provider !== 'fbt')).toEqual([]);
    expect(all.filter((p) => p.provider === 'syscall').length).toBeGreaterThan(700);
    void ms; // speed is measured by scripts/bench and reported, not asserted
    // ids are 1..N in order
    all.forEach((p, i) => expect(p.id).toBe(i + 1));
  });

  test('ids are the same in every registry', () => {
    const a = new ProbeRegistry().match(spec('syscall::getppid:entry'))[0];
    const b = new ProbeRegistry().match(spec('syscall::getppid:entry'))[0];
    expect(a.id).toBe(b.id);
    expect(a.id).toBeGreaterThan(3);
  });

  // x86_64: the raw tracepoints sys_enter/sys_exit, filtered by the call's number (getppid 110,
  // read 0) and leaving 32-bit calls alone (TS_COMPAT of thread_info.status, task_struct + 16).
  const compat = { in: 'task', offset: 16, size: 4, mask: 2, op: 'eq' };

  test('syscall::getppid:entry is one probe with no arguments, at sys_enter for its number', () => {
    const m = registry.match(spec('syscall::getppid:entry'));
    expect(m).toHaveLength(1);
    expect(m[0]).toMatchObject({ provider: 'syscall', module: 'vmlinux', func: 'getppid', name: 'entry' });
    expect(m[0].attach).toEqual({ kind: 'rawTracepoint', event: 'sys_enter' });
    expect(m[0].guard).toEqual([{ offset: 8, size: 8, value: 110, op: 'eq' }, compat]);
    expect(m[0].args).toEqual([]);
  });

  test('syscall::read:entry arguments are fd, buf, count, typed as the record fields, from the entry registers', () => {
    const [p] = registry.match(spec('syscall:vmlinux:read:entry'));
    // pt_regs: di at 112, si at 104, dx at 96
    expect(p.args).toEqual([
      { index: 0, type: 'unsigned int', from: { kind: 'entryRegister', offset: 112 } },
      { index: 1, type: 'char *', from: { kind: 'entryRegister', offset: 104 } },
      { index: 2, type: 'size_t', from: { kind: 'entryRegister', offset: 96 } },
    ]);
    expect(p.errno).toBeUndefined();
  });

  test('syscall::read:return arg0 and arg1 are both the return value; the number is orig_ax', () => {
    const [p] = registry.match(spec('syscall::read:return'));
    expect(p.attach).toEqual({ kind: 'rawTracepoint', event: 'sys_exit' });
    expect(p.guard).toEqual([{ in: 'entryRegisters', offset: 120, size: 8, value: 0, op: 'eq' }, compat]);
    const ret = { kind: 'raw', index: 1 };
    expect(p.args).toEqual([
      { index: 0, type: 'long', from: ret },
      { index: 1, type: null, from: ret },
    ]);
    expect(p.errno).toEqual({ offset: 8 });
    expect(p.dispatch?.()).toMatchObject({ event: 'sys_exit', keyFrom: { kind: 'entryRegister', offset: 120 }, key: 0 });
  });

  test('syscall::*read*:entry matches read, pread64, readv, ... entries only', () => {
    const m = registry.match(spec('syscall::*read*:entry'));
    const names = m.map((p) => p.func);
    expect(names).toEqual(expect.arrayContaining(['read', 'pread64', 'readv', 'readlink']));
    expect(m.every((p) => p.func.includes('read') && p.name === 'entry')).toBe(true);
    expect(names).not.toContain('write');
  });

  test('syscall::: matches every syscall probe', () => {
    const m = registry.match(spec('syscall:::'));
    expect(m.length).toBe(readdirSync(join(tracefsRoot(), 'events/syscalls')).filter((e) =>
      e.startsWith('sys_')).length);
    expect(m.every((p) => p.provider === 'syscall')).toBe(true);
  });

  test('a description that matches nothing gives []', () => {
    expect(registry.match(spec('syscall::no_such_syscall:entry'))).toEqual([]);
    expect(registry.match(spec('nosuchprovider:::'))).toEqual([]);
    expect(registry.match(spec('syscall::read:middle'))).toEqual([]);
    expect(registry.match(spec('profile:::profile-0'))).toEqual([]);
    expect(registry.match(spec('profile:::tick-100us'))).toEqual([]); // under the 200us minimum
    expect(registry.match(spec('profile:::tick-1parsec'))).toEqual([]);
  });

  test('profile:::profile-997 is listed: every CPU, period 1e9/997 ns', () => {
    const m = registry.match(spec('profile:::profile-997'));
    expect(m).toHaveLength(1);
    expect(m[0].attach).toEqual({ kind: 'profile', periodNs: 1_003_009n, perCpu: true });
    expect(m[0].args.map((a) => a.from)).toEqual([
      { kind: 'pc', mode: 'kernel' },
      { kind: 'pc', mode: 'user' },
    ]);
  });

  test('profile names that are not listed are created on demand, with the right periods', () => {
    const cases: Array<[string, bigint, boolean]> = [
      ['tick-1s', 1_000_000_000n, false],
      ['profile-10ms', 10_000_000n, true],
      ['tick-5sec', 5_000_000_000n, false],
      ['tick-250usec', 250_000n, false],
      ['profile-1234', 810_372n, true], // bare number: hertz
      ['tick-2hz', 500_000_000n, false],
      ['tick-1m', 60_000_000_000n, false],
      ['tick-1min', 60_000_000_000n, false],
      ['tick-1h', 3_600_000_000_000n, false],
      ['tick-1d', 86_400_000_000_000n, false],
      ['tick-500000ns', 500_000n, false],
      ['tick-1MS', 1_000_000n, false], // units are case-insensitive
    ];
    for (const [name, periodNs, perCpu] of cases) {
      const m = registry.match(spec(`profile:::${name}`));
      expect(m, name).toHaveLength(1);
      expect(m[0].name).toBe(name);
      expect(m[0].attach, name).toEqual({ kind: 'profile', periodNs, perCpu });
    }
  });

  test('a bare name like tick-1s (provider left empty) creates the probe too', () => {
    const r = new ProbeRegistry();
    const m = r.match(spec(':::tick-3s'));
    expect(m).toHaveLength(1);
    expect(m[0]).toMatchObject({ provider: 'profile', name: 'tick-3s' });
    // It takes the next id after the providers that may have such a name (not syscall's or
    // sdt's); listing the rest later keeps every id unique and in order.
    const all = r.all();
    expect(all[m[0].id - 1]).toBe(m[0]);
    expect(all.every((p, i) => p.id === i + 1)).toBe(true);
    expect(r.match(spec('profile:::tick-3s'))[0].id).toBe(m[0].id); // not created twice
  });

  test('a bare name lists only the providers that may have it: BEGIN lists no tracepoints', () => {
    const listedBy = new Set<string>();
    const providers = defaultProviders().map((p) => Object.assign(Object.create(p), {
      list: () => { listedBy.add(p.name); return p.list(); },
    }) as typeof p);
    const r = new ProbeRegistry(providers);
    expect(r.match(spec(':::BEGIN')).map((p) => `${p.provider}:::${p.name}`)).toEqual(['dtrace:::BEGIN']);
    for (const name of ['sdt', 'proc', 'sched', 'io', 'fbt']) expect(listedBy.has(name), name).toBe(false);
    expect(r.match(spec(':::sched_switch')).map((p) => `${p.provider}:${p.module}::${p.name}`)).toEqual(['sdt:sched::sched_switch', 'rawtp:sched::sched_switch']);
    expect(listedBy.has('sdt')).toBe(true);
  });

  test('globs over profile names only match listed or already created probes', () => {
    const r = new ProbeRegistry();
    expect(r.match(spec('profile:::tick-*')).map((p) => p.name)).toEqual([
      'tick-1', 'tick-10', 'tick-100', 'tick-500', 'tick-1000', 'tick-5000',
    ]);
    expect(r.match(spec('profile:::tick-1*s'))).toEqual([]);
    expect(r.match(spec('profile:foo::tick-1s'))).toEqual([]);
  });

  test('parseProfileName refuses malformed names', () => {
    expect(parseProfileName('tick-')).toBeNull();
    expect(parseProfileName('tick-1.5s')).toBeNull();
    expect(parseProfileName('tock-1s')).toBeNull();
    expect(parseProfileName('tick-5000')).toEqual({ perCpu: false, periodNs: 200_000n });
    expect(parseProfileName('tick-5001')).toBeNull(); // just under 200us
  });
});

describe('dtrace -l listing', () => {
  test('header and rows have dtrace(1) widths', () => {
    expect(listHeader()).toBe(
      '   ID   PROVIDER            MODULE                          FUNCTION NAME\n',
    );
    expect(listRow(registry.byId(1)!)).toBe(
      '    1     dtrace                                                     BEGIN\n',
    );
    const [read] = registry.match(spec('syscall::read:entry'));
    expect(listRow(read)).toBe(
      `${String(read.id).padStart(5)}    syscall           vmlinux                              read entry\n`,
    );
  });

  test('-l lists BEGIN, END, ERROR and more than 700 syscall probes', () => {
    const lines = textOf(listProbes(registry)).trimEnd().split('\n');
    expect(lines[0]).toMatch(/^\s+ID\s+PROVIDER\s+MODULE\s+FUNCTION NAME$/);
    expect(lines[1]).toMatch(/^\s+1\s+dtrace\s+BEGIN$/);
    expect(lines[2]).toMatch(/^\s+2\s+dtrace\s+END$/);
    expect(lines[3]).toMatch(/^\s+3\s+dtrace\s+ERROR$/);
    expect(lines.filter((l) => / syscall +vmlinux /.test(l)).length).toBeGreaterThan(700);
  });

  test('-l with specifiers lists only matching probes, specifier by specifier', () => {
    const out = listProbes(registry, [
      { kind: 'n', text: 'syscall::getppid:' },
      { kind: 'P', text: 'dtrace' },
      { kind: 'i', text: '1' },
    ]);
    expect(out).toMatchObject({ stderr: '' });
    const lines = textOf(out).trimEnd().split('\n');
    expect(lines).toHaveLength(7);
    expect(lines[1]).toMatch(/syscall\s+vmlinux\s+getppid entry$/);
    expect(lines[2]).toMatch(/syscall\s+vmlinux\s+getppid return$/);
    expect(lines.slice(3).map((l) => l.trim().split(/\s+/).pop())).toEqual(['BEGIN', 'END', 'ERROR', 'BEGIN']);
  });

  test('-l -n tick-1s creates and lists the probe; -f read lists read entry and return', () => {
    const r = new ProbeRegistry();
    const tick = textOf(listProbes(r, [{ kind: 'n', text: 'tick-1s' }])).trimEnd().split('\n');
    expect(tick).toHaveLength(2);
    expect(tick[1]).toMatch(/profile\s+tick-1s$/);
    const read = textOf(listProbes(r, [{ kind: 'f', text: 'read' }])).trimEnd().split('\n');
    expect(read.slice(1).map((l) => l.trim().split(/\s+/).slice(1))).toEqual([
      ['syscall', 'vmlinux', 'read', 'entry'],
      ['syscall', 'vmlinux', 'read', 'return'],
    ]);
  });

  test('-l notes descriptions that match nothing on stderr, and refuses bad specifiers', () => {
    const out = listProbes(registry, [{ kind: 'n', text: 'syscall::nosuch:entry' }]);
    expect(out).toEqual({
      text: listHeader(),
      stderr: 'dtrace: failed to match syscall::nosuch:entry: No probe matches description\n',
    });
    expect(listProbes(registry, [{ kind: 'P', text: 'a:b' }])).toEqual({
      error: 'invalid probe specifier a:b: invalid probe description "a:b": Overspecified probe description',
    });
    expect(listProbes(registry, [{ kind: 'i', text: '999999' }])).toEqual({
      error: 'invalid probe specifier 999999: invalid probe identifier 999999: Unknown probe identifier',
    });
  });

  test('specifiers fill descriptions from the right', () => {
    const d = (kind: string, text: string) => parseProbeSpecifier({ kind, text });
    const four = (provider: string, module: string, fn: string, name: string) => ({
      spec: { provider, module, function: fn, name }, instance: 'host',
    });
    expect(d('n', 'entry')).toEqual([four('', '', '', 'entry')]);
    expect(d('n', 'read:entry')).toEqual([four('', '', 'read', 'entry')]);
    expect(d('n', 'syscall::read:entry')).toEqual([four('syscall', '', 'read', 'entry')]);
    expect(d('f', 'vmlinux:read')).toEqual([four('', 'vmlinux', 'read', '')]);
    expect(d('m', 'syscall:vmlinux')).toEqual([four('syscall', 'vmlinux', '', '')]);
    expect(d('P', 'profile')).toEqual([four('profile', '', '', '')]);
    // -m's predicate ends its module; a -m starting with '/' is a binary's path.
    expect(d('m', 'unix/probefunc == "preempt"/{ trace(1); }')).toEqual([four('', 'unix', '', '')]);
    expect(d('m', '/usr/lib/postgresql/15/bin/postgres')).toEqual([four('', '/usr/lib/postgresql/15/bin/postgres', '', '')]);
    expect(d('m', 'postgresql:/usr/bin/x')).toEqual([four('postgresql', '/usr/bin/x', '', '')]);
    expect(d('n', 'a::b:c, d:e { trace(1); }')).toEqual([four('a', '', 'b', 'c'), four('', '', 'd', 'e')]);
    expect(d('n', 'syscall::read:entry /pid == 1/')).toEqual([four('syscall', '', 'read', 'entry')]);
    expect(d('n', 'web1:syscall::read:entry')).toEqual([
      { spec: { provider: 'syscall', module: '', function: 'read', name: 'entry' }, instance: 'web1' },
    ]);
    expect(d('i', '42')).toEqual([{ id: 42 }]);
    expect(d('n', '1:2:3:4:5:6')).toHaveProperty('error');
    expect(d('s', 'x.d')).toHaveProperty('error');
  });

  test('-lv shows attributes and argument types', () => {
    const [read] = registry.match(spec('syscall::read:entry'));
    const out = textOf(listProbes(registry, [{ kind: 'n', text: 'syscall::read:entry' }], true));
    expect(out).toBe(
      listHeader() +
        listRow(read) +
        '\n\tProbe Description Attributes\n' +
        '\t\tIdentifier Names: Private\n' +
        '\t\tData Semantics:   Private\n' +
        '\t\tDependency Class: Unknown\n' +
        '\n\tArgument Attributes\n' +
        '\t\tIdentifier Names: Private\n' +
        '\t\tData Semantics:   Private\n' +
        '\t\tDependency Class: ISA\n' +
        '\n\tArgument Types\n' +
        '\t\targs[0]: unsigned int\n' +
        '\t\targs[1]: char *\n' +
        '\t\targs[2]: size_t\n' +
        '\n',
    );
  });

  test('-lv of an untyped probe says None', () => {
    const begin = registry.byId(1) as Probe;
    const info = probeInfo(begin, registry.provider('dtrace')!.attributes);
    expect(info).toContain('\t\tIdentifier Names: Stable\n');
    expect(info).toMatch(/\tArgument Types\n\t\tNone\n\n$/);
    const [tick] = registry.match(spec('profile:::tick-1'));
    expect(probeInfo(tick, registry.provider('profile')!.attributes)).toMatch(/Argument Types\n\t\tNone\n/);
  });
});

describe('RFD 2 instances', () => {
  test('a description for another instance matches no probe here; host and globs do', () => {
    const r = new ProbeRegistry();
    expect(r.match({ instance: 'web1', provider: 'dtrace', module: '', function: '', name: 'BEGIN' })).toEqual([]);
    expect(r.match({ instance: 'host', provider: 'dtrace', module: '', function: '', name: 'BEGIN' })).toHaveLength(1);
    expect(r.match({ instance: '*', provider: 'dtrace', module: '', function: '', name: 'BEGIN' })).toHaveLength(1);
    expect(r.match({ instance: 'web1', provider: 'profile', module: '', function: '', name: 'tick-7s' })).toEqual([]);
    expect(r.all().some((p) => p.name === 'tick-7s')).toBe(false); // not created for another machine
  });
});
