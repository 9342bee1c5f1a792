/* A full dynamic variable space drops stores and says so. The smallest space holds one variable. */
#pragma D option quiet
#pragma D option dynvarsize=32

BEGIN
{
	a[1] = 1;
	a[2] = 2;
	self->x = 3;
	printf("%d %d %d\n", a[1], a[2], self->x);
	exit(0);
}
