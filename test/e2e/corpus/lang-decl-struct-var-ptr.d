/* flags: -q */
struct s { int a; int b; };
struct s *sp;

BEGIN
{
	sp = (struct s *)0;
	printf("%d\n", (long)&sp->b);
	exit(0);
}
