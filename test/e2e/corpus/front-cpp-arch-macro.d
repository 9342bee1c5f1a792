/* flags: -C -q -xerrtags */
/* Agrees with the reference DTrace (output and exit status). */
#ifdef __x86_64__
BEGIN { printf("x86_64 %d\n", __SIZEOF_LONG__); exit(0); }
#else
BEGIN { printf("other %d\n", __SIZEOF_LONG__); exit(0); }
#endif
