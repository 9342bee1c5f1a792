/* flags: -q -C */
/* Agrees with the reference DTrace (output and exit status). */
#include <string.h>
BEGIN { printf("ok\n"); exit(0); }
