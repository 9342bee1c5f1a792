/* flags: -q */
/* Agrees with the reference DTrace (output and exit status). */
this int x; BEGIN { this->x = 3; printf("%d\n", this->x); exit(0); }
