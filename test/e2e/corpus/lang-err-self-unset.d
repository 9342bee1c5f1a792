/* flags: -xerrtags */
BEGIN
{
	self->y = 1;
	trace(self->z);
}
