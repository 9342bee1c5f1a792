/* flags: -q */
/* strtok(NULL, ...) goes on with the previous string, as the DTrace guide writes it: the integer constant 0 stands for any pointer. */
BEGIN
{
	printf("%s\n", strtok("a,b;c", ",;"));
	printf("%s\n", strtok(NULL, ",;"));
	printf("%s\n", strtok(0, ",;"));
	exit(0);
}
