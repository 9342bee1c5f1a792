/* flags: -q */
/* Agrees with the reference DTrace on stdout and exit status; the fault line on stderr keeps illumos DTrace's form. */
struct s { int a; }; struct s g; self struct s st; BEGIN { g.a = 7; self->st = g; self->st = 0; printf("%d\n", self->st.a); exit(0); } ERROR { printf("fault %d\n", arg4); exit(0); }
