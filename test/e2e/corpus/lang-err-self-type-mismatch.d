/* flags: -xerrtags */
BEGIN
{
	self->x = 1;
	self->x = "s";
}
