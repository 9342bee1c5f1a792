// The npm package as a user installs it: `npm pack`, then `npm install -g` of the tarball (the
// README's command, into a temporary prefix), then `dtrace` from that prefix's bin/ on the kernel.
// The project is packed from a copy (its node_modules linked), so that `prepack` rebuilding dist/
// and the prebuilt addon never touches the tree the other tests run from.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, realpathSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ROOT, kernelUnavailable } from '../helpers/run.js';

const skip = kernelUnavailable();
let work = '';
let tarball = '';
let listing: string[] = [];

/** npm, as a user at a shell runs it (no ambient npm_* variables from the test runner); its stdout and stderr. */
function npm(args: string[], cwd: string): { stdout: string; stderr: string } {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('npm_')));
  const r = spawnSync('npm', args, { cwd, env: { ...env, NO_UPDATE_NOTIFIER: '1' }, encoding: 'utf8', timeout: 240_000 });
  if (r.status !== 0) throw new Error(`npm ${args.join(' ')}: status ${r.status}${r.error ? ` (${r.error.message})` : ''}\n${r.stderr}`);
  return { stdout: r.stdout, stderr: r.stderr };
}

/**
 * `npm install -g TARBALL` into `prefix` (plus `extra` flags), as the README says: with the package's
 * install script allowed (npm 11 runs none it was not told to; a tarball is named by its path).
 * Returns the installed package's directory.
 */
function installGlobal(prefix: string, extra: string[] = []): string {
  const { stderr } = npm(['install', '-g', '--prefix', prefix, '--prefer-offline', '--no-audit', '--no-fund', `--allow-scripts=${tarball}`, ...extra, tarball], work);
  // npm names a package whose scripts it was not allowed to run.
  expect(stderr).not.toMatch(/install-scripts/);
  return path.join(prefix, 'lib/node_modules/node-dtrace');
}

function run(bin: string, args: string[]) {
  const r = spawnSync(bin, args, { encoding: 'utf8', timeout: 60_000, cwd: work });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** What bin/dtrace (a shell script) hands node, from `sh -x`: `--snapshot-blob BLOB -- ARGS` or `SCRIPT ARGS`. */
function started(dtrace: string): string {
  // (V8 options in NODE_OPTIONS would make bin/dtrace leave the snapshot.)
  const { NODE_OPTIONS: _, ...env } = process.env;
  const r = spawnSync('sh', ['-x', dtrace, '-qn', 'BEGIN { exit(0); }'], { encoding: 'utf8', timeout: 60_000, env });
  expect(r.status).toBe(0);
  const exec = r.stderr.split('\n').find((l) => l.startsWith('+ exec '));
  return (exec ?? r.stderr).replace(/^\+ exec \S+ /, '').replace(/'/g, '');
}

beforeAll(() => {
  work = mkdtempSync(path.join(tmpdir(), 'dtrace-package-'));
  if (skip) return;
  const copy = path.join(work, 'src');
  mkdirSync(copy);
  for (const f of ['package.json', 'package-lock.json', 'tsconfig.json', 'binding.gyp', 'README.md', 'bin', 'lib', 'man', 'native', 'scripts', 'src'])
    cpSync(path.join(ROOT, f), path.join(copy, f), { recursive: true });
  symlinkSync(path.join(ROOT, 'node_modules'), path.join(copy, 'node_modules'));
  // The addon node-gyp built here, with its time, so that prepack need not build it again
  // (scripts/prebuild.mjs rebuilds it when a source is newer).
  const built = path.join(ROOT, 'build/Release/dtrace_native.node');
  if (existsSync(built)) {
    const copied = path.join(copy, 'build/Release/dtrace_native.node');
    mkdirSync(path.dirname(copied), { recursive: true });
    copyFileSync(built, copied);
    const { atime, mtime } = statSync(built);
    utimesSync(copied, atime, mtime);
  }
  const name = npm(['pack', '--pack-destination', work], copy).stdout.trim().split('\n').pop()!;
  tarball = path.join(work, name);
  listing = execFileSync('tar', ['tzf', tarball], { encoding: 'utf8' }).trim().split('\n');
}, 300_000);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('npm package', () => {
  test('the tarball holds what dtrace runs from, and no tests, sources or source maps', (ctx) => {
    if (skip) ctx.skip(skip);
    for (const f of ['bin/dtrace', 'bin/dtrace.mjs', 'bin/dtrace-dofdump', 'bin/dtrace-flamegraph', 'dist/cli/main.js', 'dist/cli/start.bundle.mjs', 'lib/dtrace/procfs.d',
      'man/dtrace.1', 'native/addon.cc', 'binding.gyp', `prebuilds/${process.platform}-${process.arch}/node.napi.glibc.node`, 'package.json', 'README.md'])
      expect(listing).toContain(`package/${f}`);
    // Of scripts/, only npm's install script (the addon: node-gyp-build in an installed package;
    // then the start-up snapshot).
    const installScripts = ['package/scripts/install.mjs', 'package/scripts/snapshot.mjs'];
    for (const f of installScripts) expect(listing).toContain(f);
    expect(listing.filter((f) => (/^package\/(test|src|scripts|build|docs)\//.test(f) && !installScripts.includes(f)) || f.endsWith('.map'))).toEqual([]);
    // The start-up snapshot belongs to the node and the tree that built it: its script is packed,
    // the install script builds it.
    expect(listing).toContain('package/dist/cli/snapshot.cjs');
    expect(listing.filter((f) => /dtrace\.blob/.test(f))).toEqual([]);
    // The library API's declarations, and only those.
    expect(listing.filter((f) => f.endsWith('.d.ts')).sort()).toEqual(['package/dist/api/access.d.ts', 'package/dist/api/dtrace.d.ts', 'package/dist/api/index.d.ts', 'package/dist/api/types.d.ts']);
    // postpack removed the prebuilt addon from the tree it packed.
    expect(existsSync(path.join(work, 'src/prebuilds'))).toBe(false);
  });

  test('npm install -g of the tarball gives a dtrace that traces and lists', (ctx) => {
    if (skip) ctx.skip(skip);
    const prefix = path.join(work, 'global');
    const pkg = installGlobal(prefix);
    const dtrace = path.join(prefix, 'bin/dtrace');
    const r = run(dtrace, ['-qn', 'BEGIN { printf("ok\\n"); exit(0); }']);
    expect(r).toEqual({ status: 0, stdout: 'ok\n\n', stderr: '' });
    // (dtrace ends its output with a blank line, as DTrace does.)
    // The install script built the start-up snapshot there, and dtrace starts from it.
    expect(readFileSync(path.join(pkg, 'dist/cli/dtrace.blob.root'), 'utf8')).toBe(`${realpathSync(pkg)}\n`);
    expect(started(dtrace)).toBe(`--snapshot-blob ${realpathSync(pkg)}/dist/cli/dtrace.blob -- -qn BEGIN { exit(0); }`);
    // `dtrace -l | head`: the header, then dtrace's own probes.
    const l = spawnSync('sh', ['-c', `"${dtrace}" -l | head -3`], { encoding: 'utf8', timeout: 60_000 });
    expect(l.stdout).toMatch(/^ +ID +PROVIDER +MODULE +FUNCTION NAME\n +1 +dtrace +BEGIN\n +2 +dtrace +END\n$/);
    expect(l.stderr).toBe('');
    // The prebuilt addon served: the install script (node-gyp-build) found it loads, so nothing was compiled.
    expect(existsSync(path.join(pkg, 'build'))).toBe(false);
    // The library API by the package's name, from a TypeScript program checked against its declarations.
    const app = path.join(work, 'app');
    mkdirSync(path.join(app, 'node_modules'), { recursive: true });
    symlinkSync(pkg, path.join(app, 'node_modules/node-dtrace'));
    writeFileSync(path.join(app, 'package.json'), '{"type": "module"}\n');
    writeFileSync(path.join(app, 'main.ts'), [
      "import { DTrace, type ProbeRecord } from 'node-dtrace';",
      'const dt = DTrace.open();',
      "dt.go(dt.compile('BEGIN { @n[\"x\"] = count(); trace(7); exit(0); }'));",
      'const seen: ProbeRecord[] = [];',
      "for await (const r of dt.records()) if (r.type === 'probe') seen.push(r);",
      "const value: bigint | undefined = dt.aggregations()[0].entries[0].value;",
      "console.log(seen.map((r) => r.probe.name + ' ' + JSON.stringify(r.actions, (_k, v) => typeof v === 'bigint' ? v + 'n' : v)).join(' | '), value);",
      'dt.close();',
    ].join('\n'));
    const tsc = spawnSync(process.execPath, [path.join(ROOT, 'node_modules/typescript/bin/tsc'), '--strict', '--module', 'nodenext', '--target', 'es2022',
      '--types', 'node', '--typeRoots', path.join(ROOT, 'node_modules/@types'), 'main.ts'], { cwd: app, encoding: 'utf8' });
    expect(tsc.stdout + tsc.stderr).toBe('');
    expect(run(process.execPath, [path.join(app, 'main.js')])).toEqual({ status: 0, stdout: 'BEGIN [{"action":"trace","value":"7n"},{"action":"exit","status":0}] 1n\n', stderr: '' });
    expect(run(path.join(prefix, 'bin/dtrace-dofdump'), ['-n', 'BEGIN { exit(0); }']).stdout).toMatch(/^dofh_ident.id_magic = 0x7f, D, O, F\n/);
  });

  test('without install scripts the prebuilt addon runs; without it too, a dtrace: message says what to run', (ctx) => {
    if (skip) ctx.skip(skip);
    const prefix = path.join(work, 'noscripts');
    const pkg = installGlobal(prefix, ['--ignore-scripts']);
    const dtrace = path.join(prefix, 'bin/dtrace');
    expect(run(dtrace, ['-qn', 'BEGIN { printf("ok\\n"); exit(0); }'])).toEqual({ status: 0, stdout: 'ok\n\n', stderr: '' });
    // No snapshot was built: dtrace starts from dist/.
    expect(existsSync(path.join(pkg, 'dist/cli/dtrace.blob'))).toBe(false);
    expect(started(dtrace)).toBe(`${realpathSync(pkg)}/bin/dtrace.mjs -qn BEGIN { exit(0); }`);
    // A machine the prebuilt addon does not fit: none is found.
    rmSync(path.join(pkg, 'prebuilds'), { recursive: true });
    const r = run(dtrace, ['-qn', 'BEGIN { printf("ok\\n"); exit(0); }']);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      `dtrace: failed to initialize dtrace: the native addon is not built for this machine (${process.platform}-${process.arch}, Node.js ${process.versions.node}): ` +
      `build it with "npx node-gyp rebuild" in ${pkg} (it needs g++, make and python3)\n`);
    expect(r.status).toBe(1);
  });

  test('where no prebuilt addon fits, the install script builds it with node-gyp', (ctx) => {
    if (skip) ctx.skip(skip);
    // The same package without prebuilds/, as on a machine the prebuilt addon does not fit.
    const unpacked = path.join(work, 'unpacked');
    mkdirSync(unpacked);
    execFileSync('tar', ['xzf', tarball, '-C', unpacked]);
    rmSync(path.join(unpacked, 'package/prebuilds'), { recursive: true });
    const repacked = path.join(work, 'noprebuilt.tgz');
    execFileSync('tar', ['czf', repacked, '-C', unpacked, 'package']);
    const prefix = path.join(work, 'fromsource');
    const { stderr } = npm(['install', '-g', '--prefix', prefix, '--prefer-offline', '--no-audit', '--no-fund', `--allow-scripts=${repacked}`, repacked], work);
    expect(stderr).not.toMatch(/install-scripts/);
    const pkg = path.join(prefix, 'lib/node_modules/node-dtrace');
    expect(existsSync(path.join(pkg, 'build/Release/dtrace_native.node'))).toBe(true);
    expect(existsSync(path.join(pkg, 'prebuilds'))).toBe(false);
    expect(run(path.join(prefix, 'bin/dtrace'), ['-qn', 'BEGIN { printf("ok\\n"); exit(0); }'])).toEqual({ status: 0, stdout: 'ok\n\n', stderr: '' });
  }, 300_000);
});

describe('an unbuilt clone', () => {
  test('dtrace without dist/ says to build it, with no stack trace', () => {
    const clone = path.join(work, 'clone');
    mkdirSync(clone);
    cpSync(path.join(ROOT, 'bin'), path.join(clone, 'bin'), { recursive: true });
    cpSync(path.join(ROOT, 'package.json'), path.join(clone, 'package.json'));
    const r = run(path.join(clone, 'bin/dtrace'), ['-n', 'BEGIN']);
    expect(r.stderr).toBe(`dtrace: failed to initialize dtrace: the compiled program (${clone}/dist) is missing: run "npm install" (or "npm run build") in ${clone}\n`);
    expect(r.status).toBe(1);
    expect(readdirSync(clone).sort()).toEqual(['bin', 'package.json']);
  });
});
