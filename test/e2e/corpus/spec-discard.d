/* flags: -q */
/* A discarded speculation's data never appears. */
BEGIN
{
	self->spec = speculation();
}

BEGIN
{
	speculate(self->spec);
	printf("this should not be seen\n");
}

BEGIN
{
	discard(self->spec);
}

BEGIN
{
	printf("discarded %d\n", self->spec);
	exit(0);
}
