/* flags: -xerrtags */
/* The minimum from a pragma; a kernel type is Private/Private/Unknown. */
#pragma D option amin=Unstable/Unstable/Common
BEGIN
{
	trace(sizeof (struct file));
}
