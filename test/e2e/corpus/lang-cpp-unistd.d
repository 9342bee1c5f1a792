/* flags: -q -C */
/* Agrees with the reference DTrace (output and exit status). */
#include <unistd.h>
BEGIN { printf("%d\n", STDERR_FILENO); exit(0); }
