/* flags: -q -x nspec=2 */
/* With nspec=2 two speculations coexist, and each commits its own data. */
BEGIN
{
	self->a = speculation();
	self->b = speculation();
	self->c = speculation();
	printf("a = %d, b = %d, c = %d\n", self->a, self->b, self->c);
}

BEGIN
{
	speculate(self->b);
	printf("from b\n");
}

BEGIN
{
	speculate(self->a);
	printf("from a\n");
}

BEGIN
{
	discard(self->b);
}

BEGIN
{
	commit(self->a);
}

BEGIN
{
	exit(0);
}
