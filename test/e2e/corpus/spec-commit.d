/* flags: -q */
/* A committed speculation's data appears at the commit, in the order it was recorded. */
BEGIN
{
	self->spec = speculation();
	printf("speculation %d\n", self->spec);
}

BEGIN
{
	speculate(self->spec);
	printf("first speculative line\n");
}

BEGIN
{
	speculate(self->spec);
	printf("second speculative line: %d\n", 42);
	trace("traced");
}

BEGIN
{
	printf("before commit\n");
}

BEGIN
{
	commit(self->spec);
}

BEGIN
{
	printf("\nafter commit\n");
	exit(0);
}
