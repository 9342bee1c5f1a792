/* flags: -q */
host:dtrace:::BEGIN
{
	printf("ok\n");
	exit(0);
}
