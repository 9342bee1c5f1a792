/* flags: -q */
struct s { int a; long b; };

BEGIN
{
	printf("%d\n", (long)((struct s *)0 + 2));
	exit(0);
}
