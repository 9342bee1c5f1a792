/* flags: -q -C */
/* Agrees with the reference DTrace (output and exit status). */
#include <errno.h>
BEGIN { printf("%d\n", ENOENT); exit(0); }
