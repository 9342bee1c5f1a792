/* flags: -C -q -xerrtags */
/* Agrees with the reference DTrace (output and exit status). */
#ifdef __GNUC__
BEGIN { printf("gnuc\n"); exit(0); }
#else
BEGIN { printf("no gnuc\n"); exit(0); }
#endif
