/* flags: -q */
/* A run-time index outside a declared array faults with DTRACEFLT_BADINDEX (11), arg5 the index, */
/* once per firing; a negative index of an int array shows as its byte offset over 4 (reference: */
/* DTrace for Linux 2.0.1 prints exactly this). In-bounds stores and loads, 2-D and struct arrays work. */
int a[5];
int m[3][4];
struct s { int x; char c[3]; } st[2];

BEGIN { i = 4; a[i] = 7; j = -1; k = 9; n = 1; st[n].x = 6; m[2][3] = 8; }
BEGIN { trace(a[k]); }
BEGIN { trace(a[j]); }
BEGIN { m[2][k] = 1; }
BEGIN { trace(m[k][0]); }
BEGIN { trace(st[k].x); }
BEGIN { trace(st[n].c[k]); }
BEGIN { printf("a[4] %d st[1].x %d m[2][3] %d\n", a[i], st[n].x, m[n + 1][i - 1]); }
BEGIN { exit(0); }

ERROR { printf("fault %d index %d\n", arg4, arg5); }
