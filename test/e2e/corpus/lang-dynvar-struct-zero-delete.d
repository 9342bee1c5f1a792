/* flags: -q -xerrtags */
/* Agrees with the reference DTrace (output and exit status). */
struct pt { int x; int y; };
self struct pt p;
BEGIN { self->p.x = 3; self->p = 0; printf("%d\n", self->p.x); }
ERROR { printf("fault %d\n", arg4); exit(0); }
