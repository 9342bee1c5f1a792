/* flags: -q -w */
/* system() runs after what was printed before it, and dtrace waits for it. */
BEGIN
{
	printf("before\n");
	system("echo %s %d", "hello", 42);
	printf("after\n");
	exit(0);
}
