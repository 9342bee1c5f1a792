/* flags: -q */
dtrace:::[AB]EGIN
{
	printf("%s\n", probename);
	exit(0);
}
