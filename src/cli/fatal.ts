// How dtrace(1) ends on an error: a message on stderr and DTrace's exit status.

/** dtrace(1)'s exit statuses. */
export const E_ERROR = 1;
export const E_USAGE = 2;

/** Ends the run with a message on stderr and an exit status (dtrace's fatal()). */
export class Fatal extends Error {
  /** `hint`: a line for a person at a terminal, after DTrace's own words (never in piped output). */
  constructor(message: string, readonly status = E_ERROR, readonly hint?: string) {
    super(message);
  }
}
