// dtraced(8), the fleet's agent (issue 18): `dtraced [-n NAME] [-w] [-x fleet=nats://...]`, or
// DTRACE_FLEET for the server. Runs until SIGINT or SIGTERM, then closes every enabling.

import { hostname } from 'node:os';
import { Agent } from '../fleet/agent.js';
import { INSTANCE_NAME } from '../fleet/protocol.js';
import { missingPrivileges } from './privileges.js';

const USAGE = 'Usage: dtraced [-n instance] [-w] [-x fleet=nats://[user:pass@]host:port]\n';

export async function dtraced(argv: string[]): Promise<number> {
  let instance = hostname().split('.')[0]!;
  let url = process.env.DTRACE_FLEET;
  let allowDestructive = false;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '-n' && i + 1 < argv.length) instance = argv[++i]!;
    else if (a === '-w') allowDestructive = true;
    else if (a === '-x' && i + 1 < argv.length && argv[i + 1]!.startsWith('fleet=')) url = argv[++i]!.slice('fleet='.length);
    else {
      process.stderr.write(a === '--help' ? '' : `dtraced: unknown argument ${a}\n`);
      process.stderr.write(USAGE);
      return a === '--help' ? 0 : 2;
    }
  }
  if (!url) {
    process.stderr.write('dtraced: no fleet: give -x fleet=nats://... or DTRACE_FLEET\n' + USAGE);
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
  process.stderr.write(`dtraced: ${(e as Error).stack ?? e}\n`);
  process.exit(1);
});
