// Fuzzing the compiler: thousands of D programs mutated from the end-to-end corpus go through
// compile(). Every one must either compile or fail with a D diagnostic (SourceError carrying a
// DtraceError) -- never another exception, never a hang. Deterministic: a fixed seed.
import { describe, expect, test } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import vm from 'node:vm';
import { compile, SourceError } from '../../src/compiler/compile.js';
import { DtraceError } from '../../src/compiler/errors.js';
import { ProbeRegistry } from '../../src/providers/registry.js';
import { rng } from '../helpers/rng.js';

const CORPUS = path.join(import.meta.dirname, '../e2e/corpus');
const PROGRAMS = 3000;
// A wall-clock watchdog for hangs, not a speed limit: corpus lang-long-clause.d takes 2 s of CPU to
// compile, and 9 s of wall time on this shared 2-core machine at load 9 (seen: the 5 s it was failed).
const PER_PROGRAM_MS = 30_000;

/** Extra seeds for the type system, on top of the corpus. */
const SEEDS = [
  'struct s { int a; char b[10]; }; BEGIN { printf("%d\\n", sizeof(struct s)); exit(0); }',
  'typedef struct p { int x : 3; unsigned y : 5; } p_t; BEGIN { trace(((p_t *)0)->y); }',
  'enum e { A, B = A + 2 }; inline int C = B * 2; BEGIN { trace(C); trace((char)C); }',
  'BEGIN { trace(curthread->real_parent->comm[0]); trace(&curthread->pid + 1); trace(*curthread); }',
  'union u { int i; char c[4]; }; BEGIN { trace(offsetof(union u, c)); trace(sizeof(union u)); }',
  'BEGIN { trace(stringof(curthread->comm)); trace(`vmlinux`struct task_struct *)0; }',
];

const TOKENS = [
  '->', '.', '*', '&', '(', ')', '[', ']', '{', '}', ';', ',', ':', '?', '=', '==', '+', '-', '/', '%',
  '<<', '>>', '!', '~', '++', '--', '@', '@a', '$1', '$$1', '$pid', '`', 'self->', 'this->', 'struct',
  'union', 'enum', 'typedef', 'inline', 'sizeof', 'offsetof', 'stringof', 'xlate', 'translator',
  'provider', 'probe', 'int', 'char', 'long', 'unsigned', 'signed', 'void', 'string', 'uint64_t',
  'pid_t', 'curthread', 'pid', 'execname', 'arg0', 'args[0]', 'x', 'y', 's', 'a', '0', '1', '0x7f',
  '-1', '4294967296', '"str"', "'c'", 'BEGIN', 'END', 'tick-1s', '/pid/', '#pragma D option quiet\n',
  '\n', ' ', 'printf("%d", 1)', 'trace(1)', 'exit(0)', ': 3', 'struct s', 'struct task_struct',
];


function mutate(src: string, others: string[], rand: () => number): string {
  const pick = (n: number) => Math.floor(rand() * n);
  let s = src;
  const rounds = 1 + pick(4);
  for (let i = 0; i < rounds; i++) {
    const at = pick(s.length + 1);
    const len = 1 + pick(Math.max(1, Math.min(20, s.length - at)));
    switch (pick(6)) {
      case 0: // delete a span
        s = s.slice(0, at) + s.slice(at + len);
        break;
      case 1: // duplicate a span
        s = s.slice(0, at + len) + s.slice(at, at + len) + s.slice(at + len);
        break;
      case 2: // insert a token
        s = s.slice(0, at) + ` ${TOKENS[pick(TOKENS.length)]} ` + s.slice(at);
        break;
      case 3: // replace a span with a token
        s = s.slice(0, at) + TOKENS[pick(TOKENS.length)] + s.slice(at + len);
        break;
      case 4: { // splice in a piece of another program
        const o = others[pick(others.length)];
        const from = pick(o.length + 1);
        s = s.slice(0, at) + o.slice(from, from + 1 + pick(60)) + s.slice(at);
        break;
      }
      default: // flip one character
        if (s.length > 0) s = s.slice(0, at) + String.fromCharCode(32 + pick(95)) + s.slice(at + 1);
    }
  }
  return s;
}

const registry = new ProbeRegistry();

/** Compile one program under a watchdog: vm's timeout stops any JavaScript that runs too long. */
function compileGuarded(text: string): unknown {
  const run = () => {
    try {
      compile([{ kind: 's', text, name: 'fuzz.d' }], {
        registry, options: new Map(), macroArgs: ['1', 'two'], zdefs: true,
      });
      return null;
    } catch (e) {
      return e;
    }
  };
  guard.run = run;
  return RUN.runInContext(guard, { timeout: PER_PROGRAM_MS });
}

const guard = vm.createContext({ run: (): unknown => null });
const RUN = new vm.Script('run()');

describe('compiler fuzzing', () => {
  test(`${PROGRAMS} mutated programs get only D diagnostics`, () => {
    const seeds = [
      ...readdirSync(CORPUS).filter((f) => f.endsWith('.d')).sort().map((f) => readFileSync(path.join(CORPUS, f), 'utf8')),
      ...SEEDS,
    ];
    expect(seeds.length).toBeGreaterThan(20);
    const rand = rng(0x5eed);
    const failures: string[] = [];
    let diagnosed = 0;
    for (let i = 0; i < PROGRAMS && failures.length < 5; i++) {
      const text = mutate(seeds[i % seeds.length], seeds, rand);
      let outcome: unknown;
      try {
        outcome = compileGuarded(text);
      } catch (e) {
        failures.push(`hang or crash (${(e as Error).message}) on:\n${text}`);
        continue;
      }
      if (outcome === null) continue;
      if (outcome instanceof SourceError && outcome.error instanceof DtraceError) {
        diagnosed++;
        continue;
      }
      const err = outcome as Error;
      failures.push(`${err?.constructor?.name}: ${err?.message}\n${err?.stack?.split('\n').slice(1, 4).join('\n')}\non:\n${text}`);
    }
    expect(failures, failures.join('\n\n----\n')).toEqual([]);
    // The mutations must actually exercise the error paths.
    expect(diagnosed).toBeGreaterThan(PROGRAMS / 4);
  }, 300_000);
});
