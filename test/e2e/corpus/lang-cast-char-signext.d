/* flags: -q */
BEGIN
{
	printf("%d\n", (int)(char)200);
	exit(0);
}
