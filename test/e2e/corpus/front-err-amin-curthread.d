/* flags: -xerrtags -x amin=Stable/Stable/Common */
/* curthread is Stable/Private/Common: its data stability is below the minimum. */
BEGIN
{
	trace(pid);
	trace(curthread->pid);
}
