/* flags: -q */
dt*:::BEGIN
{
	printf("%s\n", probeprov);
	exit(0);
}
