/* flags: -q */
/* Dynamic variable space as DTrace for Linux accounts it: 12 bytes, the keys and the value per
   element (a[int] = int: 20 bytes), so dynvarsize=100 holds five; the store that finds it full
   is a drop and abandons its clause, recording nothing (later clauses run).
   (expected output and message taken from the reference DTrace for Linux) */
#pragma D option dynvarsize=100
int n;
BEGIN { a[n++] = 1; a[n++] = 1; a[n++] = 1; a[n++] = 1; }
BEGIN { printf("reached\n"); a[n++] = 1; a[n++] = 1; printf("not recorded\n"); a[n++] = 1; }
BEGIN { printf("%d %d %d %d %d\n", a[0], a[4], a[5], a[6], n); exit(0); }
