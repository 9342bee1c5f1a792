/* flags: -xerrtags */
/* *(a + b) is writable only when a is a writable D variable: here a is the constant. */
BEGIN
{
	this->p = (int *)alloca(8);
	*(1 + this->p) = 1;
}
