/* flags: -q */
BEGIN
{
	names[1] = "one";
	names[2] = "two";
	printf("%s %s\n", names[2], names[1]);
	exit(0);
}
