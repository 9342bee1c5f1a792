// SIGINT and SIGTERM over a whole run of dtrace(1).

import type { ProcessSet } from './process.js';

/**
 * Until tracing runs, a signal ends dtrace as it would any program, taking the commands it
 * started (still stopped) with it; tracing then sets its own handler. One listener dispatches
 * for the whole run: removing it would drop a signal still pending.
 */
export class Signals {
  private handler: (signal: NodeJS.Signals) => void;
  private readonly dispatch = (signal: NodeJS.Signals) => this.handler(signal);

  constructor(procs: ProcessSet) {
    this.handler = (signal) => {
      procs.release();
      process.removeListener('SIGINT', this.dispatch);
      process.removeListener('SIGTERM', this.dispatch);
      process.kill(process.pid, signal);
    };
    process.on('SIGINT', this.dispatch);
    process.on('SIGTERM', this.dispatch);
  }

  /**
   * Compiling and loading run without a turn of the event loop, so a ^C typed meanwhile is still
   * pending: give the loop turns to deliver it to the early handler, which ends dtrace as a signal
   * ends DTrace before tracing starts; then signals go to `handler`.
   */
  async handOver(handler: (signal: NodeJS.Signals) => void): Promise<void> {
    for (let turn = 0; turn < 2; turn++) await new Promise((resolve) => setImmediate(resolve));
    this.handler = handler;
  }
}
