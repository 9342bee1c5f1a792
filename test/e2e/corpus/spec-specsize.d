/* flags: -q -x specsize=64 */
/* Each record takes 24 bytes (header and one 64-bit value): two fit in 64, three do not. */
BEGIN
{
	self->spec = speculation();
}

BEGIN { speculate(self->spec); printf("%d\n", 1L); }
BEGIN { speculate(self->spec); printf("%d\n", 2L); }
BEGIN { speculate(self->spec); printf("%d\n", 3L); }
BEGIN { speculate(self->spec); printf("%d\n", 4L); }
BEGIN { speculate(self->spec); printf("%d\n", 5L); }

BEGIN
{
	commit(self->spec);
}

BEGIN
{
	exit(0);
}
