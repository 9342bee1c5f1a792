/* flags: -q */
struct s { char c; };

BEGIN
{
	printf("%d %d\n", sizeof (char **), sizeof (struct s *));
	exit(0);
}
