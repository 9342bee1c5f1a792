// How dtrace(1) starts and ends as a process: its name, a reader that goes away, and an exit that
// waits for its output. bin/dtrace.mjs runs it from dist/; the start-up snapshot (snapshot.ts)
// runs it from the V8 heap it was saved in.

import { main } from './main.js';
import { parse } from '../compiler/parser.js';
import { warmLibraryWords } from '../compiler/library.js';

export async function start(argv: string[]): Promise<void> {
  // BEGIN and END run in this process: let them see execname "dtrace", as in DTrace.
  process.title = 'dtrace';
  // bin/dtrace keeps NODE_EXTRA_CA_CERTS from node's start-up (it costs a CA bundle's parse):
  // give it back to the environment that -c commands and system() inherit.
  const certs = process.env.DTRACE_NODE_EXTRA_CA_CERTS;
  if (certs !== undefined) {
    process.env.NODE_EXTRA_CA_CERTS = certs;
    delete process.env.DTRACE_NODE_EXTRA_CA_CERTS;
  }

  // A reader that goes away (`dtrace ... | head`) ends dtrace quietly, as SIGPIPE ends a C
  // dtrace (status 128 + SIGPIPE); the exit handlers still release every kernel object.
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (e: NodeJS.ErrnoException) => {
      if (e.code !== 'EPIPE') throw e;
      process.exit(141);
    });
  }

  let code: number;
  try {
    code = await main(argv);
  } catch (e) {
    const err = e as Error | undefined;
    process.stderr.write(`dtrace: internal error: ${err && err.message ? err.message : String(e)}\n`);
    if (process.env.DTRACE_DEBUG) process.stderr.write(String(err && err.stack) + '\n');
    code = 1;
  }
  // Exit once what was written to stdout and stderr has been flushed: a pipe that fills up makes
  // Node finish the write asynchronously, and exiting earlier would cut the output short.
  process.stdout.write('', () => process.stderr.write('', () => process.exit(code)));
}

/**
 * Work every run would repeat, done once before the snapshot is taken: the parser's grammar
 * analysis and the lookahead of the constructs D programs use most, and the words of the
 * package's D library (kept by the files' text, so a changed file is read afresh). It reads no
 * kernel state, which would be stale when the snapshot runs.
 */
export function warmUp(): void {
  const programs = [
    'BEGIN { exit(0); }',
    `#pragma D option quiet
typedef struct pair { int a; char *b; } pair_t;
inline int LIMIT = 10;
self int depth;
syscall::read:entry, syscall::write:entry
/pid != $pid && execname == "x" && arg0 > 0 || !(arg1 & 3)/
{
  self->ts = timestamp; this->p = (pair_t *)alloca(sizeof (pair_t));
  @counts[probefunc, execname] = count(); @lat = quantize(arg2 << 1);
  printf("%s %d %s\\n", stringof(arg1), (int)arg2, strjoin("a", "b"));
  x = arg0 ? arg1 : -1; a[1, "k"] = x++; trace(a[1, "k"]); tracemem(arg1, 16);
}
profile:::tick-1s /self->ts/ { printa("%@d\\n", @counts); trunc(@counts, 5); self->ts = 0; }
END { printa(@lat); clear(@counts); normalize(@counts, 1000); }`,
  ];
  for (const p of programs) {
    try {
      parse(p);
    } catch {
      /* warming only */
    }
  }
  try {
    warmLibraryWords();
  } catch {
    /* warming only: a library that cannot be read now is read when a program needs it */
  }
}
