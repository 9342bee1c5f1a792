/* flags: -q -xerrtags */
/* An element deleted by storing 0 reads as a fresh, zero-filled one: DTrace's compiler faults a
   struct element in when it is loaded (illumos dt_cg_array_op). The reference DTrace for Linux
   2.0.1 faults on the read instead (invalid address 0x0). */
struct pt { int x; int y; };
struct pt a[int];
BEGIN { a[1].x = 3; a[1].y = 4; a[1] = 0; printf("%d %d\n", a[1].x, a[1].y); exit(0); }
ERROR { printf("fault %d\n", arg4); exit(1); }
