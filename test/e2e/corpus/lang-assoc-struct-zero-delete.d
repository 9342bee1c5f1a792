/* flags: -q -xerrtags */
/* Agrees with the reference DTrace (output and exit status). */
struct pt { int x; int y; };
struct pt a[int];
BEGIN { a[1].x = 3; a[1].y = 4; a[1] = 0; printf("%d\n", a[1].x); }
ERROR { printf("fault %d\n", arg4); exit(0); }
