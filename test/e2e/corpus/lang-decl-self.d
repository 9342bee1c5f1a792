/* flags: -q */
self int x;

BEGIN
{
	self->x = 7;
	printf("%d\n", self->x);
	exit(0);
}
