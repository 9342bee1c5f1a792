import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  Btf,
  BtfError,
  listModuleBtf,
  loadKernelBtf,
  loadModuleBtf,
  normalizeIntName,
  type BtfComposite,
} from '../../src/btf/btf.js';
import { BtfBuilder } from '../../src/btf/builder.js';
import { systemPaths } from '../../src/sys/paths.js';

// ---------------------------------------------------------------------------
// This machine's kernel BTF
// ---------------------------------------------------------------------------

describe('kernel BTF (a snapshot of this kernel\'s, test/fixtures/btf)', () => {
  const btf = loadKernelBtf();
  const task = btf.get('task_struct', 'struct') as BtfComposite;

  it('is read once and cached', () => {
    expect(loadKernelBtf()).toBe(btf);
    expect(btf.name).toBe('vmlinux');
    expect(btf.typeCount).toBeGreaterThan(10000);
  });

  it('parses the whole kernel BTF', () => {
    const raw = readFileSync(`${systemPaths.btfDir}/vmlinux`);
    const t0 = performance.now();
    const fresh = Btf.parse(raw);
    const parsed = performance.now();
    fresh.find('task_struct', 'struct');
    const indexed = performance.now();
    expect(fresh.typeCount).toBe(btf.typeCount);
    void parsed, indexed; // speed belongs to benchmarks, not tests
  });

  it('has task_struct with pid, tgid, real_parent and comm at consistent offsets', () => {
    const pid = btf.member(task.id, 'pid')!;
    const tgid = btf.member(task.id, 'tgid')!;
    const parent = btf.member(task.id, 'real_parent')!;
    const comm = btf.member(task.id, 'comm')!;
    for (const m of [pid, tgid, parent, comm]) {
      expect(m).toBeDefined();
      expect(m.bitfieldSize).toBe(0);
      expect(m.bitOffset % 8).toBe(0);
      expect(m.byteOffset).toBe(m.bitOffset / 8);
      expect(m.byteOffset + btf.sizeOf(m.type)).toBeLessThanOrEqual(btf.sizeOf(task.id));
    }
    // Declaration order in include/linux/sched.h.
    expect(pid.byteOffset).toBeLessThan(tgid.byteOffset);
    expect(tgid.byteOffset).toBeLessThan(parent.byteOffset);
    expect(parent.byteOffset).toBeLessThan(comm.byteOffset);
    expect(parent.byteOffset % 8).toBe(0);

    const tgidType = btf.resolvedType(tgid.type);
    expect(tgidType).toMatchObject({ kind: 'int', name: 'int', size: 4, signed: true });
    expect(btf.sizeOf(tgid.type)).toBe(4);

    expect(btf.typeName(comm.type)).toBe('char [16]');
    expect(btf.sizeOf(comm.type)).toBe(16);
    const commType = btf.type(comm.type);
    expect(commType.kind).toBe('array');
    if (commType.kind === 'array') {
      expect(commType.count).toBe(16);
      expect(btf.resolvedType(commType.element)).toMatchObject({ kind: 'int', size: 1 });
    }

    expect(btf.typeName(parent.type)).toBe('struct task_struct *');
    const parentType = btf.type(parent.type);
    expect(parentType.kind === 'ptr' && parentType.target).toBe(task.id);
  });

  it('records task_struct members with non-decreasing offsets inside its size', () => {
    let last = -1;
    for (const m of task.members) {
      expect(m.bitOffset).toBeGreaterThanOrEqual(last);
      expect(m.bitOffset).toBeLessThan(task.size * 8);
      last = m.bitOffset;
    }
  });

  it('sizes struct file and common types', () => {
    const file = btf.get('file', 'struct');
    expect(btf.sizeOf(file.id)).toBeGreaterThan(0);
    expect(file.kind === 'struct' && btf.sizeOf(file.id) === file.size).toBe(true);
    expect(btf.alignOf(file.id)).toBe(8);
    expect(btf.sizeOf(btf.lookupCType('struct file')!.id)).toBe(btf.sizeOf(file.id));
    expect(btf.sizeOf(btf.lookupCType('unsigned long')!.id)).toBe(8);
    expect(btf.lookupCType('unsigned long')!.name).toBe('long unsigned int');
    expect(btf.sizeOf(btf.lookupCType('char')!.id)).toBe(1);
    expect(btf.lookupCType('struct no_such_struct_xyz')).toBeUndefined();
    expect(() => btf.sizeOf(btf.lookupCType('void')!.id)).toThrow(BtfError);
  });

  it('follows the typedef chain pid_t -> __kernel_pid_t -> int', () => {
    const pidT = btf.get('pid_t', 'typedef');
    expect(pidT.kind).toBe('typedef');
    const next = pidT.kind === 'typedef' ? btf.type(pidT.target) : undefined;
    expect(next).toMatchObject({ kind: 'typedef', name: '__kernel_pid_t' });
    const last = next?.kind === 'typedef' ? btf.type(next.target) : undefined;
    expect(last).toMatchObject({ kind: 'int', name: 'int', size: 4, signed: true });
    expect(btf.resolve(pidT.id)).toBe(last!.id);
    expect(btf.typeName(pidT.id)).toBe('pid_t');
    expect(btf.sizeOf(pidT.id)).toBe(4);
  });

  it('finds members through an anonymous union', () => {
    // Look for any struct with an anonymous union holding named members.
    let found: { struct: BtfComposite; anonOffset: number; inner: string; innerOffset: number } | undefined;
    for (let id = 1; id < btf.typeCount && !found; id++) {
      if (btf.kindOf(id) !== 'struct') continue;
      const s = btf.type(id) as BtfComposite;
      if (s.name === '') continue;
      for (const m of s.members) {
        const u = m.name === '' ? btf.resolvedType(m.type) : undefined;
        const named = u?.kind === 'union' ? u.members.find((x) => x.name !== '' && x.bitfieldSize === 0) : undefined;
        // Skip names that also exist directly in the struct.
        // Want a non-zero offset, so the anonymous member's offset really is added.
        if (named && m.bitOffset + named.bitOffset > 0 && !s.members.some((x) => x.name === named.name)) {
          found = { struct: s, anonOffset: m.bitOffset, inner: named.name, innerOffset: named.bitOffset };
          break;
        }
      }
    }
    expect(found).toBeDefined();
    const info = btf.member(found!.struct.id, found!.inner)!;
    expect(info).toBeDefined();
    expect(info.bitOffset).toBe(found!.anonOffset + found!.innerOffset);
    expect(btf.memberPath(`struct ${found!.struct.name}`, found!.inner).bitOffset).toBe(info.bitOffset);

    // x86_64 qspinlock: union { atomic_t val; struct { u8 locked; u8 pending; };
    // struct { u16 locked_pending; u16 tail; }; } -- 'tail' sits in a struct in the union.
    const tail = btf.memberPath('struct qspinlock', 'tail');
    expect(tail.byteOffset).toBe(2);
    expect(btf.typeName(tail.type)).toBe('u16');
  });

  it('renders C type names', () => {
    expect(btf.typeName(btf.member(task.id, '__state')!.type)).toBe('unsigned int');
    expect(btf.typeName(task.id)).toBe('struct task_struct');
    expect(btf.typeName(btf.lookupCType('enum pid_type')!.id)).toBe('enum pid_type');
    const fops = btf.get('file_operations', 'struct');
    const read = btf.member(fops.id, 'read')!;
    expect(btf.typeName(read.type)).toBe('ssize_t (*)(struct file *, char *, size_t, loff_t *)');
    const vfsRead = btf.get('vfs_read', 'func');
    expect(btf.typeName(vfsRead.id)).toBe('ssize_t vfs_read(struct file *, char *, size_t, loff_t *)');
  });

  it('computes member paths and refuses to cross a pointer', () => {
    const comm = btf.member(task.id, 'comm')!;
    expect(btf.memberPath('task_struct', 'comm[3]').byteOffset).toBe(comm.byteOffset + 3);
    const se = btf.member(task.id, 'se')!;
    const seType = btf.resolve(se.type);
    const vruntime = btf.member(seType, 'vruntime')!;
    expect(btf.memberPath('struct task_struct', 'se.vruntime').byteOffset).toBe(se.byteOffset + vruntime.byteOffset);
    expect(() => btf.memberPath('task_struct', 'real_parent.tgid')).toThrow(/pointer/);
    expect(() => btf.memberPath('task_struct', 'no_such_member')).toThrow(/struct task_struct has no member named 'no_such_member'/);
    expect(() => btf.memberPath('task_struct', 'comm[16]')).toThrow(/out of bounds/);
  });

  it('finds kernel enumerators', () => {
    const e = btf.findEnumerator('PIDTYPE_TGID');
    expect(e).toBeDefined();
    expect(btf.type(e!.type)).toMatchObject({ kind: 'enum', name: 'pid_type' });
  });

  it('loads module BTF on request', () => {
    const modules = listModuleBtf();
    if (modules.length === 0) {
      // This kernel has every driver built in: /sys/kernel/btf holds only vmlinux.
      expect(() => loadModuleBtf('no_such_module')).toThrow(/cannot read BTF for module 'no_such_module'/);
      return;
    }
    const mod = loadModuleBtf(modules[0]);
    expect(mod.base).toBe(btf);
    expect(mod.startId).toBe(btf.typeCount);
    expect(loadModuleBtf(modules[0])).toBe(mod);
    expect(mod.find('task_struct', 'struct')?.id).toBe(task.id);
  });

  it('reads split BTF on top of vmlinux', () => {
    // A module-like split BTF that uses vmlinux types.
    const b = new BtfBuilder({ base: btf });
    const intId = btf.lookupCType('int')!.id;
    const taskPtr = b.ptr(task.id);
    const s = b.struct('my_mod_state', 16, [
      { name: 'owner', type: taskPtr, bitOffset: 0 },
      { name: 'count', type: intId, bitOffset: 64 },
    ]);
    const mod = Btf.parse(b.build(), { base: btf, name: 'my_mod' });
    expect(mod.startId).toBe(btf.typeCount);
    expect(mod.typeCount).toBe(btf.typeCount + 2);
    expect(mod.find('my_mod_state', 'struct')?.id).toBe(s);
    expect(mod.typeName(mod.member(s, 'owner')!.type)).toBe('struct task_struct *');
    expect(mod.member(s, 'count')).toMatchObject({ byteOffset: 8, type: intId });
    expect(mod.find('task_struct', 'struct')?.id).toBe(task.id);
    expect(mod.sizeOf(s)).toBe(16);
    expect(btf.find('my_mod_state')).toBeUndefined();
  });
});

// ---------------------------------------------------------------------------
// Hand-built BTF: every kind, exact layouts
// ---------------------------------------------------------------------------

function sample(littleEndian = true) {
  const b = new BtfBuilder({ littleEndian });
  const int = b.int('int', 4, { signed: true });
  const uint = b.int('unsigned int', 4);
  const char = b.int('char', 1, { signed: true, char: true });
  const bool = b.int('_Bool', 1, { bool: true });
  const ulong = b.int('long unsigned int', 8);
  const dbl = b.float('double', 8);
  const constChar = b.qualifier('const', char);
  const strp = b.ptr(constChar); // const char *
  const charp = b.ptr(char);
  const constCharp = b.qualifier('const', charp); // char *const
  const volInt = b.qualifier('volatile', int);
  const restrictCharp = b.qualifier('restrict', charp);
  const arr16 = b.array(char, int, 16);
  const arr4 = b.array(int, int, 4);
  const ptrArr4 = b.ptr(arr4); // int (*)[4]
  const charpArr = b.array(charp, int, 3); // char *[3]
  const pidT = b.typedef('__kernel_pid_t', int);
  const pid = b.typedef('pid_t', pidT);
  const userTag = b.typeTag('user', char);
  const userCharp = b.ptr(userTag);
  const fwd = b.fwd('later');
  const fwdU = b.fwd('ulater', true);
  const laterp = b.ptr(fwd);
  const proto = b.funcProto(int, [{ name: 'a', type: charp }, { name: 'b', type: int }]);
  const protoVoid = b.funcProto(0, []);
  const protoVar = b.funcProto(int, [{ name: 'fmt', type: strp }], true);
  const fnp = b.ptr(proto);
  const fn = b.func('do_thing', proto, 'global');
  const fnStatic = b.func('printk_like', protoVar, 'static');
  const color = b.enum('color', 4, [['RED', 0], ['GREEN', 1], ['NEG', -5]], true);
  const big = b.enum64('big', 8, [['BIG_ONE', 1n], ['BIG_MAX', 0xffff_ffff_ffffn]]);
  const anonUnion = b.union('', 8, [
    { name: 'u_long', type: ulong, bitOffset: 0 },
    { name: 'u_int', type: uint, bitOffset: 0 },
  ]);
  const inner = b.struct('inner', 8, [
    { name: 'x', type: int, bitOffset: 0 },
    { name: 'y', type: int, bitOffset: 32 },
  ]);
  const flags = b.struct('flags', 4, [
    { name: 'a', type: uint, bitOffset: 0, bitfieldSize: 3 },
    { name: 'b', type: uint, bitOffset: 3, bitfieldSize: 5 },
    { name: 'c', type: uint, bitOffset: 8, bitfieldSize: 24 },
  ]);
  const oldBits = b.int('unsigned int', 4, { bits: 4, offset: 2 });
  const oldStyle = b.struct('old_bits', 4, [{ name: 'f', type: oldBits, bitOffset: 8 }]);
  const outer = b.struct('outer', 48, [
    { name: 'pid', type: pid, bitOffset: 0 },
    { name: 'name', type: arr16, bitOffset: 32 },
    { name: '', type: anonUnion, bitOffset: 192 },
    { name: 'in', type: inner, bitOffset: 256 },
    { name: 'ins', type: b.array(inner, int, 2), bitOffset: 320 },
  ]);
  const packed = b.struct('packed', 5, [
    { name: 'c', type: char, bitOffset: 0 },
    { name: 'i', type: int, bitOffset: 8 },
  ]);
  const constOuter = b.qualifier('const', outer);
  const outerT = b.typedef('outer_t', constOuter);
  const v = b.variable('counter', int, 'global');
  const sec = b.datasec('.data', 4, [{ type: v, offset: 0, size: 4 }]);
  const tag = b.declTag('my_tag', outer, 1);
  return {
    buf: b.build(),
    ids: {
      int, uint, char, bool, ulong, dbl, constChar, strp, charp, constCharp, volInt, restrictCharp, arr16, arr4,
      ptrArr4, charpArr, pidT, pid, userTag, userCharp, fwd, fwdU, laterp, proto, protoVoid, protoVar, fnp, fn,
      fnStatic, color, big, anonUnion, inner, flags, oldBits, oldStyle, outer, packed, constOuter, outerT, v, sec, tag,
    },
  };
}

describe('BTF parsing of every kind', () => {
  const { buf, ids } = sample();
  const btf = Btf.parse(buf, { name: 'sample' });

  it('decodes each kind into a typed description', () => {
    expect(btf.type(0)).toMatchObject({ kind: 'void' });
    expect(btf.type(ids.int)).toEqual({
      kind: 'int', id: ids.int, name: 'int', size: 4, signed: true, char: false, bool: false, bits: 32, bitOffset: 0,
    });
    expect(btf.type(ids.char)).toMatchObject({ kind: 'int', char: true, signed: true, size: 1 });
    expect(btf.type(ids.bool)).toMatchObject({ kind: 'int', bool: true, signed: false });
    expect(btf.type(ids.dbl)).toEqual({ kind: 'float', id: ids.dbl, name: 'double', size: 8 });
    expect(btf.type(ids.charp)).toEqual({ kind: 'ptr', id: ids.charp, name: '', target: ids.char });
    expect(btf.type(ids.arr16)).toEqual({ kind: 'array', id: ids.arr16, name: '', element: ids.char, indexType: ids.int, count: 16 });
    expect(btf.type(ids.constChar)).toMatchObject({ kind: 'const', target: ids.char });
    expect(btf.type(ids.volInt)).toMatchObject({ kind: 'volatile', target: ids.int });
    expect(btf.type(ids.restrictCharp)).toMatchObject({ kind: 'restrict', target: ids.charp });
    expect(btf.type(ids.pid)).toMatchObject({ kind: 'typedef', name: 'pid_t', target: ids.pidT });
    expect(btf.type(ids.userTag)).toMatchObject({ kind: 'type_tag', name: 'user', target: ids.char, attribute: false });
    expect(btf.type(ids.fwd)).toMatchObject({ kind: 'fwd', name: 'later', union: false });
    expect(btf.type(ids.fwdU)).toMatchObject({ kind: 'fwd', name: 'ulater', union: true });
    expect(btf.type(ids.proto)).toEqual({
      kind: 'func_proto', id: ids.proto, name: '', returnType: ids.int, variadic: false,
      params: [{ name: 'a', type: ids.charp }, { name: 'b', type: ids.int }],
    });
    expect(btf.type(ids.protoVar)).toMatchObject({ variadic: true, params: [{ name: 'fmt', type: ids.strp }] });
    expect(btf.type(ids.fn)).toMatchObject({ kind: 'func', name: 'do_thing', proto: ids.proto, linkage: 'global' });
    expect(btf.type(ids.fnStatic)).toMatchObject({ kind: 'func', linkage: 'static' });
    expect(btf.type(ids.color)).toMatchObject({
      kind: 'enum', size: 4, signed: true,
      values: [{ name: 'RED', value: 0n }, { name: 'GREEN', value: 1n }, { name: 'NEG', value: -5n }],
    });
    expect(btf.type(ids.big)).toMatchObject({
      kind: 'enum64', size: 8, signed: false,
      values: [{ name: 'BIG_ONE', value: 1n }, { name: 'BIG_MAX', value: 0xffff_ffff_ffffn }],
    });
    expect(btf.type(ids.flags)).toMatchObject({
      kind: 'struct', size: 4,
      members: [
        { name: 'a', bitOffset: 0, bitfieldSize: 3 },
        { name: 'b', bitOffset: 3, bitfieldSize: 5 },
        { name: 'c', bitOffset: 8, bitfieldSize: 24 },
      ],
    });
    expect(btf.type(ids.anonUnion)).toMatchObject({ kind: 'union', name: '', size: 8 });
    expect(btf.type(ids.v)).toEqual({ kind: 'var', id: ids.v, name: 'counter', type: ids.int, linkage: 'global' });
    expect(btf.type(ids.sec)).toEqual({
      kind: 'datasec', id: ids.sec, name: '.data', size: 4, vars: [{ type: ids.v, offset: 0, size: 4 }],
    });
    expect(btf.type(ids.tag)).toMatchObject({ kind: 'decl_tag', name: 'my_tag', target: ids.outer, componentIdx: 1 });
  });

  it('reads big-endian BTF the same way', () => {
    const be = sample(false);
    const bbtf = Btf.parse(be.buf);
    expect(bbtf.littleEndian).toBe(false);
    expect(bbtf.typeCount).toBe(btf.typeCount);
    for (let id = 0; id < btf.typeCount; id++) expect(bbtf.type(id)).toEqual(btf.type(id));
  });

  it('looks types up by name and kind', () => {
    expect(btf.find('outer', 'struct')?.id).toBe(ids.outer);
    expect(btf.find('outer', 'union')).toBeUndefined();
    expect(btf.find('big', 'enum')?.id).toBe(ids.big); // 'enum' covers enum64
    expect(btf.find('pid_t')?.id).toBe(ids.pid);
    expect(btf.findIds('unsigned int')).toEqual([ids.uint, ids.oldBits]);
    expect(btf.lookupCType('unsigned')?.id).toBe(ids.uint);
    expect(btf.lookupCType('unsigned  long')?.id).toBe(ids.ulong);
    expect(btf.lookupCType('enum color')?.id).toBe(ids.color);
    expect(btf.lookupCType('outer_t')?.id).toBe(ids.outerT);
    expect(btf.lookupCType('double')?.id).toBe(ids.dbl);
    expect(() => btf.get('nope', 'struct')).toThrow(/no struct named 'nope'/);
    expect(btf.findEnumerator('NEG')).toEqual({ type: ids.color, value: -5n });
    expect(btf.findEnumerator('BIG_MAX')).toEqual({ type: ids.big, value: 0xffff_ffff_ffffn });
  });

  it('resolves, sizes and aligns', () => {
    expect(btf.resolve(ids.outerT)).toBe(ids.outer);
    expect(btf.resolve(ids.pid)).toBe(ids.int);
    expect(btf.resolve(ids.userTag)).toBe(ids.char);
    expect(btf.sizeOf(ids.outerT)).toBe(48);
    expect(btf.sizeOf(ids.arr16)).toBe(16);
    expect(btf.sizeOf(ids.charpArr)).toBe(24);
    expect(btf.sizeOf(ids.ptrArr4)).toBe(8);
    expect(btf.sizeOf(ids.color)).toBe(4);
    expect(btf.sizeOf(ids.v)).toBe(4);
    expect(() => btf.sizeOf(ids.fwd)).toThrow(/cannot take the size of struct later/);
    expect(() => btf.sizeOf(ids.proto)).toThrow(BtfError);
    expect(btf.alignOf(ids.outer)).toBe(8);
    expect(btf.alignOf(ids.inner)).toBe(4);
    expect(btf.alignOf(ids.arr16)).toBe(1);
    expect(btf.alignOf(ids.flags)).toBe(4);
    expect(btf.alignOf(ids.packed)).toBe(1);
  });

  it('finds members, including inside anonymous unions and bitfields', () => {
    expect(btf.member(ids.outerT, 'pid')).toEqual({ name: 'pid', type: ids.pid, bitOffset: 0, byteOffset: 0, bitfieldSize: 0 });
    expect(btf.member(ids.outer, 'u_int')).toEqual({ name: 'u_int', type: ids.uint, bitOffset: 192, byteOffset: 24, bitfieldSize: 0 });
    expect(btf.member(ids.outer, 'x')).toBeUndefined(); // named struct members are not searched
    expect(btf.member(ids.flags, 'b')).toEqual({ name: 'b', type: ids.uint, bitOffset: 3, byteOffset: 0, bitfieldSize: 5 });
    // Old-style bitfield: the int's own offset and width describe it.
    expect(btf.member(ids.oldStyle, 'f')).toEqual({ name: 'f', type: ids.oldBits, bitOffset: 10, byteOffset: 1, bitfieldSize: 4 });
    expect(() => btf.member(ids.int, 'x')).toThrow(/int is not a struct or union/);
  });

  it('follows member paths', () => {
    expect(btf.memberPath('outer', 'in.y')).toMatchObject({ name: 'y', type: ids.int, byteOffset: 36 });
    expect(btf.memberPath('outer_t', 'ins[1].y')).toMatchObject({ type: ids.int, byteOffset: 40 + 8 + 4 });
    expect(btf.memberPath(ids.outer, 'name[15]')).toMatchObject({ type: ids.char, byteOffset: 19 });
    expect(btf.memberPath('struct outer', 'u_long')).toMatchObject({ type: ids.ulong, byteOffset: 24 });
    expect(() => btf.memberPath('outer', 'in..y')).toThrow(/bad member path/);
    expect(() => btf.memberPath('outer', 'pid.x')).toThrow(/not a struct or union/);
    expect(() => btf.memberPath('flags', 'a.b')).toThrow(/bitfield/);
    expect(() => btf.memberPath('nothing', 'a')).toThrow(/no struct, union or typedef named 'nothing'/);
  });

  it('renders C type names', () => {
    const name = (id: number) => btf.typeName(id);
    expect(name(0)).toBe('void');
    expect(name(ids.strp)).toBe('const char *');
    expect(name(ids.constCharp)).toBe('char *const');
    expect(name(ids.restrictCharp)).toBe('char *restrict');
    expect(name(ids.volInt)).toBe('volatile int');
    expect(name(ids.arr16)).toBe('char [16]');
    expect(name(ids.ptrArr4)).toBe('int (*)[4]');
    expect(name(ids.charpArr)).toBe('char *[3]');
    expect(name(ids.userCharp)).toBe('char *');
    expect(name(ids.laterp)).toBe('struct later *');
    expect(name(ids.fwdU)).toBe('union ulater');
    expect(name(ids.fnp)).toBe('int (*)(char *, int)');
    expect(name(ids.protoVoid)).toBe('void (void)');
    expect(name(ids.protoVar)).toBe('int (const char *, ...)');
    expect(name(ids.fn)).toBe('int do_thing(char *, int)');
    expect(name(ids.color)).toBe('enum color');
    expect(name(ids.big)).toBe('enum big');
    expect(name(ids.anonUnion)).toBe('union (anon)');
    expect(name(ids.outerT)).toBe('outer_t');
    expect(name(ids.constOuter)).toBe('const struct outer');
    expect(name(ids.v)).toBe('int');
  });
});

describe('normalizeIntName', () => {
  it('spells integer types the way BTF names them', () => {
    expect(normalizeIntName('unsigned long')).toBe('long unsigned int');
    expect(normalizeIntName('long unsigned int')).toBe('long unsigned int');
    expect(normalizeIntName('signed')).toBe('int');
    expect(normalizeIntName('long long')).toBe('long long int');
    expect(normalizeIntName('unsigned short')).toBe('short unsigned int');
    expect(normalizeIntName('unsigned char')).toBe('unsigned char');
    expect(normalizeIntName('char')).toBe('char');
    expect(normalizeIntName('unsigned __int128')).toBe('__int128 unsigned');
    expect(normalizeIntName('pid_t')).toBeUndefined();
    expect(normalizeIntName('long char')).toBeUndefined();
  });
});

describe('corrupted BTF', () => {
  const { buf } = sample();

  function patched(fn: (b: Buffer) => void): Buffer {
    const copy = Buffer.from(buf);
    fn(copy);
    return copy;
  }

  it('rejects bad magic, version and short buffers', () => {
    expect(() => Btf.parse(Buffer.alloc(10))).toThrow(/too short for a BTF header/);
    expect(() => Btf.parse(patched((b) => b.writeUInt16LE(0x1234, 0)))).toThrow(/bad magic 0x1234/);
    expect(() => Btf.parse(patched((b) => (b[2] = 7)))).toThrow(/unsupported version 7/);
  });

  it('rejects sections that run past the data', () => {
    expect(() => Btf.parse(buf.subarray(0, buf.length - 10))).toThrow(/string section .* runs past the end/);
    expect(() => Btf.parse(patched((b) => b.writeUInt32LE(buf.length, 12)))).toThrow(/type section .* runs past the end/);
    expect(() => Btf.parse(patched((b) => (b[b.length - 1] = 0x41)))).toThrow(/does not end with a NUL/);
  });

  it('rejects unknown kinds and bad offsets inside type records', () => {
    // First record starts right after the 24-byte header; info is at +4, kind in its top byte.
    expect(() => Btf.parse(patched((b) => (b[24 + 7] = 0x1f)))).toThrow(/type 1 at offset 24 has unknown kind 31/);
    expect(() => Btf.parse(patched((b) => b.writeUInt32LE(0xffffff, 24)))).toThrow(/name offset .* outside the string section/);
    // Type section length cut mid-record.
    const typeLen = buf.readUInt32LE(12);
    expect(() => Btf.parse(patched((b) => b.writeUInt32LE(typeLen - 4, 12)))).toThrow(BtfError);
  });

  it('reports a dangling type reference when the type is used', () => {
    // Type 2 ('unsigned int') is fine; make the first PTR (const char *) point far away.
    const { ids } = sample();
    const btf0 = Btf.parse(buf);
    let off = 24;
    for (let id = 1; id < ids.strp; id++) off += recordLength(btf0, id);
    const bad = Btf.parse(patched((b) => b.writeUInt32LE(999999, off + 8)));
    expect(() => bad.type(ids.strp)).toThrow(/type \d+ refers to type 999999, which does not exist/);
    expect(() => bad.type(123456)).toThrow(/no type with id 123456/);
  });
});

/** Byte length of a type record in the sample, from its decoded form. */
function recordLength(btf: Btf, id: number): number {
  const t = btf.type(id);
  switch (t.kind) {
    case 'int':
    case 'var':
    case 'decl_tag':
      return 16;
    case 'array':
      return 24;
    case 'struct':
    case 'union':
      return 12 + 12 * t.members.length;
    case 'enum':
      return 12 + 8 * t.values.length;
    case 'func_proto':
      return 12 + 8 * (t.params.length + (t.variadic ? 1 : 0));
    default:
      return 12;
  }
}
