/* flags: -C -q -xerrtags */
/* Agrees with the reference DTrace (output and exit status). */
#if defined(__SUNW_D) && defined(__SUNW_D_64) && defined(__linux) && defined(__unix) && defined(__SVR4)
BEGIN { printf("%d\n", __SUNW_D); exit(0); }
#endif
