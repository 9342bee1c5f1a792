// system(): the consumer runs the formatted command through /bin/sh, as libdtrace's
// dtrace_system() does: what the record printed so far is flushed first, so that it appears
// before the command's output, and dtrace waits for the command before going on.

import { spawnSync } from 'node:child_process';

/** Print `pending`, run `command`, and return the (empty) rest of the line. */
export function runSystem(command: string, pending: string, out: (text: string) => void): string {
  if (pending) out(pending);
  spawnSync('/bin/sh', ['-c', command], { stdio: 'inherit' });
  return '';
}
