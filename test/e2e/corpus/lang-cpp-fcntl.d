/* flags: -q -C */
/* Agrees with the reference DTrace (output and exit status). */
#include <fcntl.h>
BEGIN { printf("%d\n", O_CREAT); exit(0); }
