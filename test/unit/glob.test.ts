import { describe, expect, test } from 'vitest';
import { isGlob, matchField } from '../../src/providers/glob.js';

describe('probe description patterns (gmatch)', () => {
  test('an empty field matches anything', () => {
    expect(matchField('', 'read')).toBe(true);
    expect(matchField('', '')).toBe(true);
  });

  test('plain text matches only itself', () => {
    expect(matchField('read', 'read')).toBe(true);
    expect(matchField('read', 'pread64')).toBe(false);
    expect(matchField('read', 'readv')).toBe(false);
  });

  test('* matches any string, including the empty one', () => {
    expect(matchField('*read*', 'read')).toBe(true);
    expect(matchField('*read*', 'pread64')).toBe(true);
    expect(matchField('*read*', 'write')).toBe(false);
    expect(matchField('*', '')).toBe(true);
    expect(matchField('sys_*_read', 'sys_enter_read')).toBe(true);
    expect(matchField('a*b*c', 'aXbYbZc')).toBe(true);
    expect(matchField('a*b*c', 'aXbYbZ')).toBe(false);
    expect(matchField('**x', 'abx')).toBe(true);
  });

  test('? matches exactly one character', () => {
    expect(matchField('read?', 'readv')).toBe(true);
    expect(matchField('read?', 'read')).toBe(false);
    expect(matchField('?', '')).toBe(false);
    expect(matchField('tick-?s', 'tick-1s')).toBe(true);
  });

  test('[...] sets, ranges and ! negation', () => {
    expect(matchField('[rw]*', 'read')).toBe(true);
    expect(matchField('[rw]*', 'write')).toBe(true);
    expect(matchField('[rw]*', 'open')).toBe(false);
    expect(matchField('profile-[0-9]*', 'profile-997')).toBe(true);
    expect(matchField('profile-[0-9]', 'profile-x')).toBe(false);
    expect(matchField('[!a-m]*', 'read')).toBe(true);
    expect(matchField('[!a-m]*', 'close')).toBe(false);
    expect(matchField('[]]', ']')).toBe(true); // ']' first is a member
    expect(matchField('[!]]', 'a')).toBe(true);
    expect(matchField('[!]]', ']')).toBe(false);
    expect(matchField('[a-]', '-')).toBe(true); // '-' before ']' is literal
    expect(matchField('[-a]', '-')).toBe(true);
  });

  test('backslash escapes a glob character', () => {
    expect(matchField('a\\*b', 'a*b')).toBe(true);
    expect(matchField('a\\*b', 'axb')).toBe(false);
    expect(matchField('\\?', '?')).toBe(true);
    expect(matchField('[\\]]', ']')).toBe(true);
  });

  test('an unterminated bracket or a trailing backslash matches nothing (as gmatch)', () => {
    expect(matchField('[ab', '[ab')).toBe(false);
    expect(matchField('[ab', 'a')).toBe(false);
    expect(matchField('ab\\', 'ab\\')).toBe(false);
  });

  test('isGlob says whether a field is a pattern', () => {
    expect(isGlob('read')).toBe(false);
    expect(isGlob('*read')).toBe(true);
    expect(isGlob('re?d')).toBe(true);
    expect(isGlob('[r]ead')).toBe(true);
    expect(isGlob('a\\b')).toBe(true);
  });

  test('long patterns with many stars stay fast', () => {
    const text = 'a'.repeat(5000);
    const t0 = performance.now();
    expect(matchField('*a*a*a*a*a*b', text)).toBe(false);
    expect(performance.now() - t0).toBeLessThan(500);
  });
});
