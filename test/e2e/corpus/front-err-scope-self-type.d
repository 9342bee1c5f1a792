/* flags: -xerrtags */
/* Agrees with the reference DTrace (message, tag and exit status). */
self int x; BEGIN { self->x = "a"; }
