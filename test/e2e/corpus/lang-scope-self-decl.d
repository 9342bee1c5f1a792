/* flags: -q */
/* Agrees with the reference DTrace (output and exit status). */
self string s; BEGIN { self->s = "hi"; printf("%s\n", self->s); exit(0); }
