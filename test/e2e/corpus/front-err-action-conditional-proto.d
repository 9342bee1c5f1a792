/* flags: -xerrtags */
/* Agrees with the reference DTrace (output, error tag and message, exit status). */
#pragma D option quiet
BEGIN
{
	a = "boo";
	c = a == "boo" ? printf("error\n") : trace();
	exit(1);
}
