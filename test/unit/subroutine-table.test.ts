// The subroutine table (src/dif/subroutines.ts) is the one list of DIF subroutines: every one the
// compiler accepts must be one the Linux bridge can emit, or a program that compiles would fail
// to load ("not supported by the Linux bridge yet").
import { describe, expect, test } from 'vitest';
import { SUBROUTINES } from '../../src/dif/subroutines.js';
import { LINUX_SUBROUTINES } from '../../src/device/linux/subroutines.js';

describe('subroutine table', () => {
  test('every subroutine the compiler accepts has a Linux emitter', () => {
    const accepted = SUBROUTINES.filter((s) => !s.unavailable);
    expect(accepted.length).toBe(40); // 39 of D, and the compiler's own <array bound>
    expect(accepted.filter((s) => !LINUX_SUBROUTINES.has(s.subr)).map((s) => s.name)).toEqual([]);
  });

  test('the Linux bridge emits nothing the compiler refuses', () => {
    expect(SUBROUTINES.filter((s) => s.unavailable && LINUX_SUBROUTINES.has(s.subr)).map((s) => s.name)).toEqual([]);
  });
});
