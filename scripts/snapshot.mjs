// dtrace(1)'s V8 start-up snapshot from dist/cli/snapshot.cjs (which scripts/bundle.mjs makes):
// dist/cli/dtrace.blob, and dtrace.blob.root naming the tree it was built in, since the paths it
// holds are that tree's (bin/dtrace uses it only there). Built by bundle.mjs in a clone and by
// install.mjs in an installed package (the script is packed; the blob, tied to the node binary
// that builds it, is not).
import { spawnSync } from 'node:child_process';
import { realpathSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** Builds the snapshot of the package at `root`; returns null, or why there is none. */
export function buildSnapshot(root) {
  const cli = path.join(realpathSync(root), 'dist/cli');
  const blob = path.join(cli, 'dtrace.blob');
  rmSync(blob, { force: true });
  rmSync(`${blob}.root`, { force: true });
  const built = spawnSync(process.execPath, ['--snapshot-blob', blob, '--build-snapshot', path.join(cli, 'snapshot.cjs')], { encoding: 'utf8' });
  if (built.status === 0) {
    writeFileSync(`${blob}.root`, `${realpathSync(root)}\n`);
    return null;
  }
  rmSync(blob, { force: true });
  return (built.stderr || built.error?.message || `node exited with status ${built.status}`).trim().split('\n').pop();
}
