// dtraced(8), the fleet's agent (issue 18): `dtraced [-n NAME] [-w] [-x fleet=nats://...]`, or
// DTRACE_FLEET for the server. Runs until SIGINT or SIGTERM, then closes every enabling.

import { Command, CommanderError, InvalidArgumentError } from 'commander';
import { hostname } from 'node:os';
import { Agent } from '../fleet/agent.js';
import { INSTANCE_NAME } from '../fleet/protocol.js';
import { missingPrivileges } from './privileges.js';

/** Our own command, not DTrace's: its options through commander (as dtrace-flamegraph's). */
function parseArguments(argv: string[]): { instance: string; url?: string; allowDestructive: boolean } | number {
  const command = new Command('dtraced')
    .description("the fleet's agent: traces this machine for dtrace -x fleet=... clients")
    .option('-n, --instance <name>', 'the instance name (default: the host name)')
    .option('-w, --destructive', 'allow destructive actions (a client must ask with -w too)')
    .option('-x, --option <fleet=url>', 'the NATS server: fleet=nats://[user:pass@]host:port (default: DTRACE_FLEET)', (v: string) => {
      if (!v.startsWith('fleet=')) throw new InvalidArgumentError('only fleet=nats://... is an option of dtraced.');
      return v.slice('fleet='.length);
    })
    .helpOption('-h, --help', 'show this help')
    .exitOverride();
  try {
    command.parse(argv, { from: 'user' });
  } catch (e) {
    if (e instanceof CommanderError) return e.exitCode === 0 ? 0 : 2;
    throw e;
  }
  const o = command.opts<{ instance?: string; destructive?: boolean; option?: string }>();
  return { instance: o.instance ?? hostname().split('.')[0]!, url: o.option ?? process.env.DTRACE_FLEET, allowDestructive: o.destructive ?? false };
}

export async function dtraced(argv: string[]): Promise<number> {
  const args = parseArguments(argv);
  if (typeof args === 'number') return args;
  const { instance, url, allowDestructive } = args;
  if (!url) {
    process.stderr.write('dtraced: no fleet: give -x fleet=nats://... or DTRACE_FLEET (dtraced --help)\n');
    return 2;
  }
  if (!INSTANCE_NAME.test(instance)) {
    process.stderr.write(`dtraced: invalid instance name ${instance}: letters, digits, _ and - only\n`);
    return 2;
  }
  const why = missingPrivileges();
  if (why) {
    process.stderr.write(`dtraced: ${why}\n`);
    return 1;
  }
  const agent = new Agent({ url, instance, allowDestructive, log: (l) => process.stderr.write(`${l}\n`) });
  try {
    await agent.start();
  } catch (e) {
    process.stderr.write(`dtraced: cannot use fleet: ${(e as Error).message}\n`);
    return 1;
  }
  await new Promise<void>((resolve) => {
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
  });
  await agent.stop();
  return 0;
}

dtraced(process.argv.slice(2)).then((status) => process.exit(status), (e) => {
  process.stderr.write(`dtraced: internal error: ${(e as Error).message ?? e}\n`);
  process.exit(1);
});
