/* Same, for a cast without a pointer: the error is at the operand. */
BEGIN
{
	x = (kthread_t)arg0;
}
