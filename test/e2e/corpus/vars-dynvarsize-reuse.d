/* flags: -q */
/* dynvarsize=60 holds three a[int] = int elements: deleting a[1] frees its space for a[4] at
   once; a[5] is a drop. (expected output and message taken from the reference DTrace for Linux) */
#pragma D option dynvarsize=60
BEGIN { a[1] = 1; a[2] = 2; a[3] = 3; a[1] = 0; a[4] = 4; a[5] = 5; }
BEGIN { printf("%d %d %d %d %d\n", a[1], a[2], a[3], a[4], a[5]); exit(0); }
