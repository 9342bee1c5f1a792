/* flags: -q */
dtrace:::BEG*
{
	printf("%s\n", probename);
	exit(0);
}
