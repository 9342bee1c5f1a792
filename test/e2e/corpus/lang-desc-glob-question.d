/* flags: -q */
dtrace:::BEGI?
{
	printf("%s\n", probename);
	exit(0);
}
