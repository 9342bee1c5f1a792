/* flags: -xerrtags */
/* Agrees with the reference DTrace (message, tag and exit status). */
this int x; BEGIN { this->x = "a"; }
