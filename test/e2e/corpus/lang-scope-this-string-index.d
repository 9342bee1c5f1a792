/* flags: -q */
/* Agrees with the reference DTrace (output and exit status). */
BEGIN { this->s = "abc"; printf("%c\n", this->s[1]); exit(0); }
