/* flags: -q */
/* Agrees with the reference DTrace (output and exit status). */
struct s { int a; int b; }; struct s g; self struct s st; BEGIN { g.a = 1; g.b = 2; self->st = g; printf("%d %d\n", self->st.a, self->st.b); self->st = 0; printf("deleted\n"); exit(0); }
