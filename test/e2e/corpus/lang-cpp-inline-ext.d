/* flags: -q -C */
/* Agrees with the reference DTrace (output and exit status). */
__extension__ typedef long long myll_t;
BEGIN { printf("%d\n", sizeof (myll_t)); exit(0); }
