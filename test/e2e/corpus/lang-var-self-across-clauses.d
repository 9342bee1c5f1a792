/* flags: -q */
BEGIN
{
	self->v = 21;
}

BEGIN
{
	printf("%d\n", self->v * 2);
	exit(0);
}
