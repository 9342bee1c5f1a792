/* flags: -q */
struct s { int a; char b[10]; };
BEGIN { printf("%d\n", sizeof(struct s)); exit(0); }
