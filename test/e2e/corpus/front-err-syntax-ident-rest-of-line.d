/* flags: -q -xerrtags */
/* Agrees with the reference DTrace (output, error tag and message, exit status). */
BEGIN
{
	x = a b + 1;
	exit(0);
}
