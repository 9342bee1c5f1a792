/* flags: -C -q -xerrtags */
/* Agrees with the reference DTrace (output and exit status). */
#include <stdint.h>
BEGIN { printf("%d %d\n", INT8_MAX, UINT16_MAX); exit(0); }
