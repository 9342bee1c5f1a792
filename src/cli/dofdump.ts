// dtrace-dofdump: show a program's DOF decoded, as mdb's ::dofdump / ::dof_hdr / ::difo show it on
// illumos.
//
//   dtrace-dofdump FILE...                      dump DOF files (e.g. written with -o below), or
//                                               the DOF of objects dtrace -G wrote
//   dtrace-dofdump [options] -s script.d        compile D as dtrace(1) does and dump its DOF
//   dtrace-dofdump [options] -n 'probe { ... }'
//
// Options are dtrace's: -n -P -m -f -i -s (programs), -q -w -Z -C -D -U -I -x name[=value], and
// -o FILE to also write the raw DOF there (what `dtrace -G -x linktype=dof` writes). Operands after
// the programs are the macro arguments $1, $2, ...; a lone operand naming a DOF file is dumped.

import { readFileSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { compile, defaultMacros, SourceError, type Source } from '../compiler/compile.js';
import { formatCompileError } from '../compiler/errors.js';
import { writeDof } from '../dof/writer.js';
import { dumpDof } from '../dof/dump.js';
import { probeRegistry } from '../providers/registry.js';
import { isSet, OptionError, parseOptionValue } from '../options.js';
import { parseArgs, UsageError } from './args.js';
import { CppError, preprocess } from './cpp.js';
import { ElfFile } from '../sys/elf.js';
import { errnoText } from '../sys/errno.js';

export const DOFDUMP_USAGE = `Usage: dtrace-dofdump file.dof ...
       dtrace-dofdump [-CqwZ] [-D name[=def]] [-U name] [-I path] [-x opt[=val]] [-o file.dof]
                      [-n|-P|-m|-f|-i probe-description] [-s script] [args ...]
`;

interface Io {
  out: (s: string) => void;
  err: (s: string) => void;
}

/** The DOF in a file: the file itself, or an ELF object's .SUNW_dof section (dtrace -G's objects). */
function dofOf(buf: Buffer, file: string): Buffer {
  if (buf.length < 4 || buf.toString('latin1', 0, 4) !== '\x7fELF') return buf;
  const sec = new ElfFile(buf, file).section('.SUNW_dof');
  if (!sec || sec.size === 0) throw new Error('no DOF in this ELF file (it has no .SUNW_dof section)');
  return buf.subarray(sec.offset, sec.offset + sec.size);
}

/** Run dtrace-dofdump; returns the exit status (0, 1 on a failure, 2 on bad usage). */
export function dofdumpMain(argv: string[], io: Io = {
  out: (s) => process.stdout.write(s), err: (s) => process.stderr.write(s),
}): number {
  let args;
  try {
    args = parseArgs(argv);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    io.err(`dtrace-dofdump: ${e.message}\n${DOFDUMP_USAGE}`);
    return 2;
  }
  if (args.help || argv.length === 0) {
    (args.help ? io.out : io.err)(DOFDUMP_USAGE);
    return args.help ? 0 : 2;
  }
  const programs = args.options.filter((o) => 'nPmfis'.includes(o.letter));

  // DOF files: every operand, when no program is given.
  if (programs.length === 0) {
    let status = 0;
    for (const file of args.operands) {
      let buf: Buffer;
      try {
        buf = readFileSync(file);
      } catch (e) {
        io.err(`dtrace-dofdump: failed to open ${file}: ${errnoText(e)}\n`);
        status = 1;
        continue;
      }
      try {
        if (args.operands.length > 1) io.out(`${file}:\n`);
        io.out(dumpDof(dofOf(buf, file)));
      } catch (e) {
        io.err(`dtrace-dofdump: ${file}: ${(e as Error).message}\n`);
        status = 1;
      }
    }
    return status;
  }

  // D programs: compile as dtrace does, then dump the DOF it would hand to the device.
  const options = new Map<string, string>();
  const cppArgs: string[] = [];
  let output: string | undefined;
  const sources: Source[] = [];
  try {
    for (const { letter, value } of args.options) {
      switch (letter) {
        case 'q': options.set(...parseOptionValue('quiet', null)); break;
        case 'w': options.set(...parseOptionValue('destructive', null)); break;
        case 'Z': options.set('zdefs', 'set'); break;
        case 'C': options.set('cpp', 'set'); break;
        case 'D': case 'U': case 'I': cppArgs.push(`-${letter}${value}`); break;
        case 'o': output = value; break;
        case 'x': {
          const eq = value!.indexOf('=');
          options.set(...parseOptionValue(eq < 0 ? value! : value!.slice(0, eq), eq < 0 ? null : value!.slice(eq + 1)));
          break;
        }
        case 's': {
          let text: string;
          try {
            text = readFileSync(value!, 'utf8');
          } catch (e) {
            io.err(`dtrace-dofdump: failed to open ${value}: ${errnoText(e)}\n`);
            return 1;
          }
          if (isSet(options, 'cpp')) text = preprocess(text, { path: options.get('cpppath'), args: cppArgs, headers: false });
          sources.push({ kind: 's', text, name: value! });
          break;
        }
        case 'n': case 'P': case 'm': case 'f': case 'i':
          sources.push({ kind: letter, text: value!, name: value! });
          break;
        default:
          io.err(`dtrace-dofdump: -${letter} is a dtrace(1) option this command does not take\n${DOFDUMP_USAGE}`);
          return 2;
      }
    }
  } catch (e) {
    if (e instanceof OptionError) {
      io.err(`dtrace-dofdump: failed to set option: ${e.message}\n`);
      return 2;
    }
    if (e instanceof CppError) {
      io.err(`dtrace-dofdump: failed to preprocess: ${e.message}\n`);
      return 1;
    }
    throw e;
  }

  let dof: Buffer;
  try {
    const compiled = compile(sources, {
      registry: probeRegistry(), options, macroArgs: args.operands, macros: defaultMacros(),
      zdefs: isSet(options, 'zdefs'),
    });
    dof = writeDof(compiled.program);
  } catch (e) {
    if (e instanceof SourceError) {
      const mode = e.source.kind === 's' ? 'script' : 'probe';
      io.err(formatCompileError(e.error, { mode, source: e.source.name, errtags: isSet(options, 'errtags') }) + '\n');
      return 1;
    }
    throw e;
  }
  if (output !== undefined) {
    try {
      writeFileSync(output, dof);
    } catch (e) {
      io.err(`dtrace-dofdump: failed to open ${output}: ${errnoText(e)}\n`);
      return 1;
    }
  }
  io.out(dumpDof(dof));
  return 0;
}

// Run as a command: `node dist/cli/dofdump.js ...` (or the dtrace-dofdump bin entry).
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const status = dofdumpMain(process.argv.slice(2));
  process.stdout.write('', () => process.exit(status));
}
