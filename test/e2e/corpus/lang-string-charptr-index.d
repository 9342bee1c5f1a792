/* flags: -q */
/* Agrees with the reference DTrace (output and exit status). */
BEGIN { this->p = (char *)"xyz"; printf("%c\n", this->p[2]); exit(0); }
