/* flags: -q */
/* Agrees with the reference DTrace (output and exit status). */
union u { int a; char c; }; union u g; self union u v; BEGIN { g.a = 65; self->v = g; printf("%d\n", self->v.a); self->v = 0; printf("deleted\n"); exit(0); }
