/* flags: -q */
typedef short myint;
typedef myint myint2;

BEGIN
{
	printf("%d\n", sizeof (myint2));
	exit(0);
}
