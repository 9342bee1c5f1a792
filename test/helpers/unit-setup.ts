// Global setup of the unit tests (vitest.config.ts, project "unit"). Unit tests never read this
// machine's kernel: the providers read a tracefs snapshot, the BTF reader a BTF snapshot and the
// kernel symbol table a short kallsyms, all from test/fixtures/ (unit-paths.ts points
// src/sys/paths.ts at them). This unpacks the two packed ones.
//
// To show that the live kernel's state does not matter, when it can (root, tracefs mounted) it
// also makes a uprobe event of another tracer's kind -- in a group of its own, as DTrace for
// Linux makes dt_PID_dtrace/BEGIN -- for the duration of the run, and removes it after.
import { execFileSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { ROOT } from './run.js';
import { UPROBE_EVENTS, entryOffset } from './uprobe-events.js';

export const UNPACKED = path.join(ROOT, 'test/fixtures/.unpacked');

export default function setup(): () => void {
  const btf = path.join(UNPACKED, 'btf');
  mkdirSync(btf, { recursive: true });
  writeFileSync(path.join(btf, 'vmlinux'), gunzipSync(readFileSync(path.join(ROOT, 'test/fixtures/btf/vmlinux.gz'))));
  const tracefs = path.join(UNPACKED, 'tracefs');
  rmSync(tracefs, { recursive: true, force: true });
  mkdirSync(tracefs, { recursive: true });
  execFileSync('tar', ['-C', tracefs, '-xzf', path.join(ROOT, 'test/fixtures/tracefs.tar.gz')]);

  let foreign = '';
  if (process.getuid?.() === 0 && existsSync(UPROBE_EVENTS)) {
    sweepStaleForeignEvents();
    const group = `dtt_foreign_${process.pid}`;
    try {
      appendFileSync(UPROBE_EVENTS, `p:${group}/foreign_probe /bin/true:0x${entryOffset('/bin/true').toString(16)}\n`);
      foreign = group;
      process.stdout.write(`unit-setup: made the foreign uprobe event ${group}/foreign_probe for this run\n`);
    } catch (e) {
      process.stdout.write(`unit-setup: could not make a foreign uprobe event: ${(e as Error).message}\n`);
    }
  }
  return () => {
    if (foreign) appendFileSync(UPROBE_EVENTS, `-:${foreign}/foreign_probe\n`);
  };
}

/** Remove the foreign events of earlier runs that were killed before their teardown. */
function sweepStaleForeignEvents(): void {
  for (const m of readFileSync(UPROBE_EVENTS, 'utf8').matchAll(/^p:(dtt_foreign_(\d+))\/foreign_probe /gm)) {
    if (existsSync(`/proc/${m[2]}`)) continue;
    try {
      appendFileSync(UPROBE_EVENTS, `-:${m[1]}/foreign_probe\n`);
    } catch { /* in use or gone meanwhile */ }
  }
}
