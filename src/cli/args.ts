// dtrace(1)'s argument vector, split as getopt(3) splits it: options and their arguments in the
// order given (they may be bundled, `-qn X`, and an argument may be attached, `-xquiet`), and the
// operands ($1, $2, ... of the D program) wherever they appear, as dtrace scans every argument.

/**
 * Option letters and whether each takes an argument (dtrace's option string). -32 and -64 are
 * getopt's options 3 and 6 with the arguments 2 and 4.
 */
export const OPTION_LETTERS: Record<string, boolean> = {
  3: true, 6: true,
  a: false, A: false, b: true, B: false, c: true, C: false, D: true, e: false, f: true, F: false, G: false,
  h: false, H: false, i: true, I: true, l: false, L: true, m: true, M: true, n: true, O: false, o: true, p: true,
  P: true, q: false, s: true, S: false, U: true, v: false, V: false, w: false, x: true, X: true,
  Z: false,
};

export interface ParsedOption {
  letter: string;
  value?: string;
}

export interface ParsedArgs {
  options: ParsedOption[];
  operands: string[];
  help: boolean;
}

/** A usage error: getopt's message, printed before the usage text. */
export class UsageError extends Error {}

export function parseArgs(argv: string[]): ParsedArgs {
  const out: ParsedArgs = { options: [], operands: [], help: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--help') {
      out.help = true;
      continue;
    }
    if (arg === '--') {
      out.operands.push(...argv.slice(i + 1));
      break;
    }
    if (!arg.startsWith('-') || arg === '-') {
      out.operands.push(arg);
      continue;
    }
    for (let j = 1; j < arg.length; j++) {
      const letter = arg[j];
      const takesArg = OPTION_LETTERS[letter];
      if (takesArg === undefined) throw new UsageError(`illegal option -- ${letter}`);
      if (!takesArg) {
        out.options.push({ letter });
        continue;
      }
      let value = arg.slice(j + 1);
      if (value === '') {
        if (i + 1 >= argv.length) throw new UsageError(`option requires an argument -- ${letter}`);
        value = argv[++i];
      }
      if ((letter === '3' && value !== '2') || (letter === '6' && value !== '4')) throw new UsageError(`illegal option -- ${letter}${value}`);
      out.options.push({ letter, value });
      break;
    }
  }
  return out;
}
