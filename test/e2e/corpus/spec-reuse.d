/* flags: -q */
/* After commit() the speculation stays busy until the consumer has seen its marker, as in DTrace
   for Linux (output and the failure taken from the reference), so the second speculation() fails. */
BEGIN
{
	self->s1 = speculation();
}

BEGIN
{
	speculate(self->s1);
	printf("one\n");
}

BEGIN
{
	commit(self->s1);
	self->s2 = speculation();
}

BEGIN
{
	speculate(self->s2);
	printf("two\n");
}

BEGIN
{
	discard(self->s2);
	printf("ids %d %d\n", self->s1, self->s2);
	exit(0);
}
