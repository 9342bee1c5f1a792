/* flags: -q */
/* After commit() on the CPU that speculated, the speculation is free again at once. */
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
