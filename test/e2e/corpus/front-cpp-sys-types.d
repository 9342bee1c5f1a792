/* flags: -C -q -xerrtags */
/* Agrees with the reference DTrace (output and exit status). */
#include <sys/types.h>
BEGIN { printf("%d\n", sizeof (pid_t)); exit(0); }
