/* flags: -xerrtags */
/* curthread is not a D variable: what it points to cannot be written. */
BEGIN
{
	curthread->pid = 1;
}
