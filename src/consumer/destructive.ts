// system(): the consumer runs the formatted command through /bin/sh, as libdtrace's
// dtrace_system() does: what the record printed so far is flushed first, so that it appears
// before the command's output, and dtrace waits for the command before going on.

import { spawnSync } from 'node:child_process';
import { closeSync, ftruncateSync, openSync, writeSync } from 'node:fs';
import { FREOPEN_RESTORE } from '../abi/records.js';
import { errnoText } from '../sys/errno.js';

/**
 * Print `pending`, run `command`, and return the (empty) rest of the line. `stdout`: the file
 * freopen() sent the output to, which the command writes to as well (freopen(3) reopens dtrace's
 * own standard output, which the command inherits). `flush` writes the output held back first.
 */
export function runSystem(command: string, pending: string, out: (text: string) => void, stdout: number | null = null, flush?: () => void): string {
  if (pending) out(pending);
  flush?.();
  spawnSync('/bin/sh', ['-c', command], { stdio: ['inherit', stdout ?? 'inherit', 'inherit'] });
  return '';
}

/**
 * freopen(): what dtrace prints from the record on goes to the named file, opened for appending
 * as libdtrace reopens its output. FREOPEN_RESTORE (what the compiler makes of freopen(""))
 * goes back to dtrace's own output (stdout or -o). A file that cannot be opened is a warning, and
 * the output stays where it was.
 */
export class Reopened {
  /** The file freopen() opened, or null for dtrace's own output. */
  fd: number | null = null;

  constructor(private readonly own: (text: string) => void, private readonly err: (text: string) => void) {}

  /** ftruncate(): empty the file freopen() opened, else dtrace's own output (`own`). */
  truncate(own: (() => void) | undefined): void {
    if (this.fd === null) return own?.();
    try {
      ftruncateSync(this.fd, 0);
    } catch {
      // Not a regular file (freopen("/dev/null")): nothing to empty.
    }
  }

  /** Where output goes now. */
  readonly out = (text: string): void => {
    if (this.fd === null) this.own(text);
    else writeSync(this.fd, text);
  };

  /**
   * Print `pending` where output goes now, then switch; returns the (empty) rest of the line. A
   * failure is reported as libdtrace reports a library action's error: `where` names the probe.
   */
  reopen(path: string, pending: string, where = ''): string {
    if (pending) this.out(pending);
    let fd: number | null = null;
    if (path !== FREOPEN_RESTORE) {
      try {
        fd = openSync(path, 'a');
      } catch (e) {
        this.err(`dtrace: ${where}couldn't freopen() "${path}": ${errnoText(e)}\n`);
        return '';
      }
    }
    if (this.fd !== null) closeSync(this.fd);
    this.fd = fd;
    return '';
  }
}
