/* flags: -xerrtags */
/* p + 1 is not an lvalue. */
BEGIN
{
	this->p = (int *)alloca(8);
	(this->p + 1)++;
}
