/* flags: -q -C */
/* Agrees with the reference DTrace (output and exit status). */
#include <limits.h>
BEGIN { printf("%d\n", CHAR_BIT); exit(0); }
