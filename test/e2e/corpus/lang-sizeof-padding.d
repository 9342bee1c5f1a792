/* flags: -q */
struct s { char a; long b; char c; };

BEGIN
{
	printf("%d\n", sizeof (struct s));
	exit(0);
}
