/* flags: -q -xerrtags */
/* Agrees with the reference DTrace (output and exit status). */
typedef struct foo { int a; char b[6]; } foo_t;
typedef foo_t *foop_t;
BEGIN { printf("%d %d\n", sizeof (foo_t), sizeof (foop_t)); exit(0); }
