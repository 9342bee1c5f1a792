/* flags: -q */
/* Agrees with the reference DTrace (output, error tag and message, exit status). */
string s;
BEGIN
{
	s = "abc";
	s = NULL;
	u = "q";
	u = 0;
	printf("assigned\n");
	exit(0);
}
