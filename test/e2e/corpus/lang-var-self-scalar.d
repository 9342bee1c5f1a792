/* flags: -q */
BEGIN
{
	self->x = 5;
	self->x *= 3;
	printf("%d\n", self->x);
	exit(0);
}
