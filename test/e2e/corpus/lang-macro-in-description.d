/* flags: -q BEGIN */
dtrace:::$1
{
	printf("%s\n", probename);
	exit(0);
}
