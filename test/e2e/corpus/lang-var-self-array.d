/* flags: -q */
BEGIN
{
	self->a[3] = 9;
	self->a[4] = 1;
	printf("%d\n", self->a[3] + self->a[4]);
	exit(0);
}
