/* flags: -C -q -xerrtags */
/* Agrees with the reference DTrace (output and exit status). */
#include <stddef.h>
BEGIN { printf("%d\n", sizeof (size_t)); exit(0); }
