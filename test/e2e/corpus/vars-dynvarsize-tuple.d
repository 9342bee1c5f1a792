/* flags: -q */
/* A two-int key and a long value: 12 + 8 + 8 = 28 bytes an element, so dynvarsize=90 holds
   three. (expected output and message taken from the reference DTrace for Linux) */
#pragma D option dynvarsize=90
int n;
BEGIN { b[n, n++] = (long)1; b[n, n++] = (long)1; b[n, n++] = (long)1; }
BEGIN { b[n, n++] = (long)1; }
BEGIN { printf("%d %d %d %d %d\n", b[0, 0], b[1, 1], b[2, 2], b[3, 3], n); exit(0); }
