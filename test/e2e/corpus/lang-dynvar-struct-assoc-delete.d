/* flags: -q */
/* Agrees with the reference DTrace (output and exit status). */
struct s { int a; }; struct s g; struct s m[int]; BEGIN { g.a = 5; m[1] = g; printf("%d\n", m[1].a); m[1] = 0; printf("deleted\n"); exit(0); }
