/* flags: -q */
BEGIN
{
	self->n++;
	self->n++;
	printf("%d\n", self->n);
	exit(0);
}
