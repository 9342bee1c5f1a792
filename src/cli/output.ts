// dtrace(1)'s output (stdout or -o's file, batched per drain) and its messages on stderr, which
// keep their place after the output written before them.

import { closeSync, ftruncateSync, openSync, writeSync } from 'node:fs';
import { errnoText } from '../sys/errno.js';
import { Fatal } from './fatal.js';

/** Output is written when this much is pending, or at the end of a drain. */
const OUTPUT_BATCH = 1 << 16;
/** Writes the output pending (of the run's Output), so that what goes to stderr keeps its place after it. */
let pendingFlush = (): void => {};

/** Write the run's pending output, if any. */
export function flushOutput(): void {
  pendingFlush();
}

/** A message on stderr, after the output pending. */
export const err = (text: string): void => {
  flushOutput();
  process.stderr.write(text);
};

/** dtrace(1)'s output: -o's file (opened, as DTrace opens it, once the programs have compiled),
 * else stdout; under -B it has no file and is not printed. */
export class Output {
  private fd: number | null = null;
  /** What was written since the last flush: records print in one write per drain, not one each. */
  private pending = '';

  constructor(private readonly file: string | undefined, private readonly buffered: boolean) {
    pendingFlush = () => this.flush();
  }

  open(): void {
    if (this.file === undefined) return;
    try {
      this.fd = openSync(this.file, 'a');
    } catch (e) {
      throw new Fatal(`failed to open output file '${this.file}': ${errnoText(e)}`);
    }
  }

  /** dtrace(1)'s own output (oprintf). */
  readonly write = (text: string): void => {
    if (this.buffered) return;
    this.pending += text;
    if (this.pending.length >= OUTPUT_BATCH) this.flush();
  };

  /** Write what is pending: after each drain, before stderr's messages and commands' output. */
  readonly flush = (): void => {
    if (this.pending === '') return;
    const text = this.pending;
    this.pending = '';
    if (this.fd === null) return void process.stdout.write(text);
    // A file that cannot take the output (a full disk) ends dtrace as a failed write ends
    // DTrace's dtrace_work(): "processing aborted", with the reason.
    try {
      writeSync(this.fd, text);
    } catch (e) {
      throw new Fatal(`processing aborted: ${errnoText(e)}`);
    }
  };

  /**
   * ftruncate(): empty -o's file, as libdtrace does (it is opened for appending, so output goes on
   * from its start). stdout is left alone: Node cannot seek it back to the start, as libdtrace does.
   */
  readonly truncate = (): void => {
    this.flush();
    if (this.fd !== null) ftruncateSync(this.fd, 0);
  };

  close(): void {
    this.flush();
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
  }
}
