/* flags: -q */
struct s { int a[4]; };

BEGIN
{
	printf("%d\n", sizeof (struct s));
	exit(0);
}
