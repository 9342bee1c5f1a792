/* flags: -xerrtags */
/* Agrees with the reference DTrace (output, error tag and message, exit status). */
#pragma D option quiet
BEGIN
{
	i = 1;
	x = i == 0 ? trace(0): trace(1);
	exit(1);
}
