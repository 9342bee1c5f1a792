/* flags: -C -q -xerrtags */
/* Agrees with the reference DTrace (output and exit status). */
#ifdef __linux__
BEGIN { printf("linux\n"); exit(0); }
#else
BEGIN { printf("other\n"); exit(0); }
#endif
