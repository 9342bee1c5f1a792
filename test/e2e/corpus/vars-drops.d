/* A full dynamic variable space drops stores and says so; a drop abandons its clause (as in
   DTrace for Linux, from which the expected output comes). The smallest space holds one variable. */
#pragma D option quiet
#pragma D option dynvarsize=32

BEGIN { a[1] = 1; }
BEGIN { a[2] = 2; printf("not recorded\n"); }
BEGIN { self->x = 3; }
BEGIN
{
	printf("%d %d %d\n", a[1], a[2], self->x);
	exit(0);
}
