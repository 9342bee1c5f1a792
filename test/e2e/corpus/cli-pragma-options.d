/* flags: -x argref unused */
#pragma D option quiet
#pragma D option strsize=4

BEGIN
{
	printf("%s\n", "truncated");
	exit(0);
}
