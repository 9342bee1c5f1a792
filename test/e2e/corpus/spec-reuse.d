/* flags: -q */
/* A speculation committed with its data on this CPU alone is free again at once, as in illumos
   and the public suite (speculation/tst.SingleCPU), so the second speculation() gets it back.
   (DTrace for Linux keeps it busy until the consumer has seen its marker: ids 1 0.) */
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
