/* flags: -q -xerrtags */
/* Agrees with the reference DTrace (output and exit status). */
enum color { RED, GREEN = 5, BLUE };
BEGIN { printf("%d %d %d %d\n", RED, GREEN, BLUE, BLUE * 2); exit(0); }
