/* flags: -xerrtags */
/* Agrees with the reference DTrace (output, error tag and message, exit status). */
BEGIN { self->y = 1; self->y = exit(0); }
