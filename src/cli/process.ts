// Processes under trace: -c starts a command stopped (so nothing it does escapes tracing) and lets it
// run once tracing is on; -p takes a running process. Either way dtrace ends when they have all
// exited, and says so as DTrace does ("pid N has exited") -- unless exit() ended tracing first:
// DTrace learns of a process's end only while it sleeps between drains, and once a drain has
// consumed exit() it sleeps no more, so an exit caused or followed by exit() goes unsaid. Ours
// wakes later than DTrace for a single record, so each end is dated and said after the drain.
//
// A command is started through /bin/sh, which stops itself with SIGSTOP and then execs the
// command: its pid is the command's pid from the start, which is what $target must name. Until
// the exec, /proc shows the shell, so the program it will run is kept (TracedProcess.program) for
// the providers that read a process's executable (pid, usdt).

import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, closeSync, constants, existsSync, openSync, readFileSync, readlinkSync, realpathSync, statSync } from 'node:fs';
import { constants as osConstants } from 'node:os';
import path from 'node:path';
import { stopOnReturn, type StopPoint } from '../device/linux/stop-point.js';
import { readElf } from '../sys/elf.js';

/** A process dtrace could not start or take; the message follows "dtrace: ". */
export class ProcessError extends Error {}

export interface TracedProcess {
  pid: number;
  /** Started by -c (true) or taken with -p (false). */
  created: boolean;
  exited: boolean;
  /** -c: the program the process will exec (it is stopped before the exec). */
  program?: string;
}

/** The state letter of /proc/PID/stat (R, S, T, Z, ...), or null when the process is gone. */
function procState(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
  } catch {
    return null;
  }
}

function exeOf(pid: number): string | null {
  try {
    return readlinkSync(`/proc/${pid}/exe`);
  } catch {
    return null;
  }
}

const PF_KTHREAD = 0x00200000;

/** Whether /proc/PID/stat's flags (its ninth field) mark a kernel thread. */
function isKernelThread(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const flags = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[6]);
    return (flags & PF_KTHREAD) !== 0;
  } catch {
    return false;
  }
}

/** Split -c's text into words as dtrace does: on blanks, no quoting. */
export function commandWords(text: string): string[] {
  const words = text.split(/[\f\n\r\t\v ]+/).filter((w) => w !== '');
  return words.length > 0 ? words : [text];
}

/** Find a command as execvp(3) would, or explain why it cannot run. */
function resolveCommand(file: string): string {
  const candidates = file.includes('/')
    ? [file]
    : (process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin').split(':').map((d) => path.join(d || '.', file));
  let denied = false;
  for (const c of candidates) {
    try {
      // execve(2) refuses what is not a regular file (a directory, a device) with EACCES.
      if (!statSync(c).isFile()) {
        denied = true;
        continue;
      }
      accessSync(c, constants.X_OK);
      return c;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'EACCES') denied = true;
    }
  }
  throw new ProcessError(`failed to execute ${file}: ${denied ? 'Permission denied' : 'No such file or directory'}`);
}

/**
 * How a -c command starts: a shell that stops itself before exec'ing the command, so that dtrace
 * can enable its probes first. The command dies with dtrace however dtrace ends -- SIGKILL too,
 * when it would otherwise stay stopped for ever -- through the parent-death signal util-linux's
 * setpriv sets; the shell checks that dtrace is still its parent once that signal is armed.
 */
function stoppedCommand(argv: string[]): [string, string[]] {
  const stop = 'kill -STOP $$ && exec "$@"';
  if (!existsSync(SETPRIV)) return ['/bin/sh', ['-c', stop, argv[0], ...argv]];
  const script = `read -r _ _ _ ppid _ < /proc/$$/stat; [ "$ppid" = "$1" ] || exit 1; shift; ${stop}`;
  return [SETPRIV, ['--pdeathsig', 'KILL', '/bin/sh', '-c', script, argv[0], String(process.pid), ...argv]];
}

const SETPRIV = '/usr/bin/setpriv';

function signalName(signal: NodeJS.Signals | null): string {
  return signal ?? 'a signal';
}

/** The processes of one dtrace run. */
export class ProcessSet {
  readonly procs: TracedProcess[] = [];
  private children = new Map<number, ChildProcess>();
  private polls: NodeJS.Timeout[] = [];
  /** Ends seen and not yet said: when (CLOCK_MONOTONIC ns, as records are stamped) and the words. */
  private ends: { at: bigint; message: string }[] = [];

  /** notice: prints a dtrace notice (suppressed when quiet); called by announce(). */
  constructor(private notice: (message: string) => void) {}

  private ended(message: string): void {
    this.ends.push({ at: process.hrtime.bigint(), message });
  }

  /**
   * Say which processes have ended since the last call, leaving out those that ended after
   * exitAt, the time stamp of the exit() record that ended tracing (null: none yet).
   */
  announce(exitAt: bigint | null): void {
    for (const e of this.ends) if (exitAt === null || e.at < exitAt) this.notice(e.message);
    this.ends = [];
  }

  /** The first process's pid: the value of $target. */
  get target(): number {
    return this.procs[0]?.pid ?? 0;
  }

  /** How many are still running. */
  get live(): number {
    return this.procs.filter((p) => !p.exited).length;
  }

  /** -c: start a command, stopped before its first instruction. */
  async create(command: string): Promise<TracedProcess> {
    const argv = commandWords(command);
    const program = resolveCommand(argv[0]);
    const child = spawn(...stoppedCommand(argv), { stdio: 'inherit' });
    const pid = child.pid;
    if (pid === undefined) throw new ProcessError(`failed to execute ${argv[0]}: could not create a process`);
    const proc: TracedProcess = { pid, created: true, exited: false, program };
    child.on('exit', (code, signal) => {
      proc.exited = true;
      if (signal) this.ended(`pid ${pid} terminated by ${signalName(signal)}`);
      else if (code !== 0) this.ended(`pid ${pid} exited with status ${code}`);
      else this.ended(`pid ${pid} has exited`);
    });
    this.children.set(pid, child);
    this.procs.push(proc);
    // Wait for the shell to stop itself.
    for (let waited = 0; ; waited++) {
      const state = procState(pid);
      if (state === 'T' || state === 't') break;
      if (state === null || state === 'Z' || proc.exited || waited > 10000)
        throw new ProcessError(`failed to execute ${argv[0]}: the process did not start`);
      await new Promise((r) => setTimeout(r, 1));
    }
    return proc;
  }

  /**
   * -x evaltime=postinit (DTrace's default) or main: let a command started stopped run until its
   * initializers have returned, and stop it there, before main(); its libraries are mapped then.
   * A command that is no ELF executable, or has no initializers, stays stopped at its exec.
   */
  async runToMain(proc: TracedProcess): Promise<void> {
    let file: string;
    let offset: number | null = null;
    try {
      file = realpathSync(proc.program!);
      const elf = readElf(file);
      const last = elf.initializers().at(-1);
      if (last !== undefined) offset = elf.fileOffset(last);
    } catch {
      return;
    }
    if (offset === null) return;
    let point: StopPoint;
    try {
      point = stopOnReturn(file, offset, proc.pid);
    } catch {
      return; // no uretprobe there: it is traced from its exec
    }
    try {
      process.kill(proc.pid, 'SIGCONT');
      // Stopped again once it runs the program, or gone; a process that waits for something in
      // its initializers longer than DTrace's users would wait is traced from where it is.
      const start = Date.now();
      while (!proc.exited && Date.now() - start < 10_000) {
        await new Promise((r) => setTimeout(r, Date.now() - start < 100 ? 1 : 10));
        const state = procState(proc.pid);
        if (state === null || state === 'Z') break;
        if ((state === 'T' || state === 't') && exeOf(proc.pid) === file) break;
      }
    } finally {
      point.close();
    }
  }

  /** -p: take a running process by id. */
  grab(text: string): TracedProcess {
    if (!/^\s*[+-]?\d+$/.test(text)) throw new ProcessError(`invalid pid: ${text}`);
    const pid = Number(text);
    const state = pid > 0 ? procState(pid) : null;
    if (state === null || state === 'Z' || state === 'X') throw new ProcessError(`failed to grab pid ${pid}: No such process`);
    if (pid === process.pid) throw new ProcessError(`failed to grab pid ${pid}: Device busy`);
    // A kernel thread has no user process to trace, and never exits: refused as DTrace's Pgrab()
    // refuses a system process.
    if (isKernelThread(pid)) throw new ProcessError(`failed to grab pid ${pid}: system process`);
    // Tracing a process means reading its mappings; a process dtrace may not inspect (another
    // namespace's init, a ptrace-protected one) is refused as Pgrab() refuses it.
    try {
      closeSync(openSync(`/proc/${pid}/maps`, 'r'));
    } catch (e) {
      const code = (e as { code?: string }).code;
      if (code === 'EACCES' || code === 'EPERM') throw new ProcessError(`failed to grab pid ${pid}: permission denied`);
      if (code === 'ENOENT' || code === 'ESRCH') throw new ProcessError(`failed to grab pid ${pid}: No such process`);
      throw e;
    }
    const proc: TracedProcess = { pid, created: false, exited: false };
    this.procs.push(proc);
    // Not our child: watch /proc for its end (a zombie has ended too).
    const poll = setInterval(() => {
      const s = procState(pid);
      if (s === null || s === 'Z' || s === 'X') {
        clearInterval(poll);
        proc.exited = true;
        this.ended(`pid ${pid} has exited`);
      }
    }, 50);
    this.polls.push(poll);
    return proc;
  }

  /** Let every created process run (tracing is on). */
  resume(): void {
    for (const p of this.procs) {
      if (p.created && !p.exited) {
        try {
          process.kill(p.pid, 'SIGCONT');
        } catch { /* already gone */ }
      }
    }
  }

  /** dtrace is ending: kill the commands it started that still run, stop watching the others. */
  release(): void {
    for (const poll of this.polls) clearInterval(poll);
    for (const p of this.procs) {
      if (p.created && !p.exited) {
        try {
          process.kill(p.pid, osConstants.signals.SIGKILL);
        } catch { /* already gone */ }
      }
    }
  }
}
