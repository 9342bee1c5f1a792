/* flags: -q */
/* One speculation by default: a second one at the same time is unavailable (id 0). */
BEGIN
{
	self->a = speculation();
	self->b = speculation();
	printf("a = %d, b = %d\n", self->a, self->b);
}

BEGIN
{
	speculate(self->a);
	printf("from a\n");
}

BEGIN
{
	/* speculate(0) drops the clause's data without complaint. */
	speculate(self->b);
	printf("from b\n");
}

BEGIN
{
	commit(self->a);
}

BEGIN
{
	commit(self->b);
}

BEGIN
{
	exit(0);
}
