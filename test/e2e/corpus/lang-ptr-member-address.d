/* flags: -q */
struct s { int a; long b; };

BEGIN
{
	printf("%d\n", (long)&((struct s *)0)->b);
	exit(0);
}
