// Probe-description pattern matching, with the semantics of gmatch(3GEN) that DTrace uses:
//   *        any string, including the empty one
//   ?        any one character
//   [...]    one character from the set; ranges a-z; [!...] negates; a ']' first is literal
//   \c       the character c itself
// As in gmatch, an unterminated '[' or a trailing '\' makes the pattern match nothing.
// An empty pattern matches anything (an empty description field means "any").

const GLOB_CHARS = /[*?[\\]/;

/** True when the pattern uses a glob character (DTrace's strisglob). */
export function isGlob(pattern: string): boolean {
  return GLOB_CHARS.test(pattern);
}

/** Does `text` match the description field `pattern`? */
export function matchField(pattern: string, text: string): boolean {
  if (pattern === '') return true;
  if (!isGlob(pattern)) return pattern === text;
  return gmatch(text, 0, pattern, 0);
}

/** gmatch: match text[ti..] against pattern[pi..]. Iterative for '*' with one backtrack point. */
export function gmatch(text: string, ti: number, pattern: string, pi: number): boolean {
  let starP = -1; // pattern index just after the last '*'
  let starT = -1; // text index that '*' is currently standing in front of
  for (;;) {
    if (pi < pattern.length) {
      const p = pattern[pi];
      if (p === '*') {
        // Collapse runs of '*' and remember where to resume if the rest fails.
        while (pi < pattern.length && pattern[pi] === '*') pi++;
        if (pi === pattern.length) return true;
        starP = pi;
        starT = ti;
        continue;
      }
      if (ti < text.length) {
        const step = matchOne(pattern, pi, text[ti]);
        if (step > 0) {
          pi += step;
          ti++;
          continue;
        }
      }
    } else if (ti === text.length) {
      return true;
    }
    // Mismatch: let the last '*' swallow one more character, or fail.
    if (starP < 0 || starT >= text.length) return false;
    starT++;
    ti = starT;
    pi = starP;
  }
}

/**
 * Match one text character against the pattern element at pattern[pi] (not '*').
 * Returns the element's length in the pattern when it matches, 0 when it does not.
 */
function matchOne(pattern: string, pi: number, c: string): number {
  const p = pattern[pi];
  if (p === '?') return 1;
  if (p === '\\') {
    if (pi + 1 >= pattern.length) return 0; // a trailing backslash matches nothing
    return pattern[pi + 1] === c ? 2 : 0;
  }
  if (p === '[') {
    const set = parseBracket(pattern, pi);
    if (set === null) return 0; // an unterminated bracket matches nothing
    return set.matches(c) ? set.length : 0;
  }
  return p === c ? 1 : 0;
}

interface BracketSet {
  length: number; // pattern characters the bracket expression spans, '[' to ']' inclusive
  matches(c: string): boolean;
}

function parseBracket(pattern: string, start: number): BracketSet | null {
  let i = start + 1;
  let negate = false;
  if (pattern[i] === '!') {
    negate = true;
    i++;
  }
  const ranges: Array<[string, string]> = [];
  let first = true;
  while (i < pattern.length) {
    let c = pattern[i];
    if (c === ']' && !first) {
      const end = i + 1;
      return {
        length: end - start,
        matches: (ch) => ranges.some(([lo, hi]) => lo <= ch && ch <= hi) !== negate,
      };
    }
    first = false;
    if (c === '\\' && i + 1 < pattern.length) c = pattern[++i];
    i++;
    let hi = c;
    if (pattern[i] === '-' && i + 1 < pattern.length && pattern[i + 1] !== ']') {
      hi = pattern[i + 1];
      if (hi === '\\' && i + 2 < pattern.length) {
        hi = pattern[i + 2];
        i++;
      }
      i += 2;
    }
    ranges.push([c, hi]);
  }
  return null;
}
