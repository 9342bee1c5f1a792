#pragma D option quiet
#pragma D option strsize=4

BEGIN
{
	printf("%s\n", "abcdef");
	exit(0);
}
