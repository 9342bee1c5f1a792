/* flags: -C -q -xerrtags */
/* Agrees with the reference DTrace (output and exit status). */
#include <stdint.h>
BEGIN { printf("%d %d\n", sizeof (uint16_t), sizeof (int64_t)); exit(0); }
