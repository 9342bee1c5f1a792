import { describe, expect, it } from 'vitest';
import { compileError, compileScript } from '../helpers/dif.js';
import { TypeScope } from '../../src/compiler/ctypes.js';
import { typeName } from '../../src/compiler/types.js';

describe('args[]', () => {
  it('types args[] from the probe description (syscall tracepoint fields)', () => {
    const p = compileScript('syscall::write:entry { trace(args[0]); trace(args[2]); x = args[1]; trace(stringof(args[1])); }');
    const sizes = p.ecbs[0].actions.map((a) => a.difo?.rtype.size);
    expect(sizes.slice(0, 2)).toEqual([4, 8]); // unsigned int fd, size_t count
  });

  it.each([
    ['syscall::write:entry { trace(args[7]); }', 'D_ARGS_IDX: index 7 is out of range for syscall::write:entry args[ ]'],
    ['BEGIN { trace(args[0]); }', 'D_ARGS_IDX: index 0 is out of range for :::BEGIN args[ ]'],
    ['syscall:::entry { trace(args[0]); }',
      'D_ARGS_MULTI: args[ ] may not be referenced because probe description syscall:::entry matches an unstable set of probes'],
    ['syscall::write:entry { trace(args[1, 2]); }', 'D_PROTO_LEN: args[ ] prototype mismatch: 2 args passed, 1 expected'],
    ['syscall::write:entry { i = 1; trace(args[i]); }',
      'D_PROTO_ARG: args[ ] argument #1 is incompatible with prototype:\n\tprototype: integer constant\n\t argument: int'],
    ['inline int first = args[0];', 'D_ARGS_NONE: args[ ] may not be referenced outside of a probe clause'],
  ])('%s', (src, want) => {
    expect(compileError(src)).toBe(want);
  });

  it('reads argument types as providers write them', () => {
    const t = new TypeScope();
    const show = (s: string) => { const d = t.typeFromDeclaration(s); return d && `${typeName(d)}:${d.kind}`; };
    expect(show('const char *')).toBe('const char *:pointer');
    expect(show('unsigned')).toBe('unsigned int:int');
    expect(show('const char *const *')).toBe('const char *const *:pointer');
    expect(show('size_t')).toBe('size_t:int');
    expect(show('no_such_type_t')).toBeUndefined();
    // tracepoint fields: fixed arrays and __data_loc arrays
    expect(show('char [16]')).toBe('char [16]:array');
    expect(show('unsigned int []')).toBe('unsigned int []:array');
    expect(t.typeFromDeclaration('char [16]')).toMatchObject({ kind: 'array', count: 16, of: { kind: 'int', size: 1 } });
  });
});
