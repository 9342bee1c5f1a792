/* flags: -q */
/* Without -w (or #pragma D option destructive), a destructive action stops dtrace. */
BEGIN
{
	raise(9);
}
