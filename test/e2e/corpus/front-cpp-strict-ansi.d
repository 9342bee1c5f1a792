/* flags: -C -q -xerrtags */
/* Agrees with the reference DTrace (output and exit status). */
#ifdef __STRICT_ANSI__
BEGIN { printf("strict %ld\n", __STDC_VERSION__); exit(0); }
#endif
