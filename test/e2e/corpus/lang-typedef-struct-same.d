/* flags: -q */
typedef struct s { int v; } s_t;

BEGIN
{
	printf("%d %d\n", sizeof (struct s), sizeof (s_t));
	exit(0);
}
