/* flags: -q */
enum e { X = 3, Y = X * 2 };

BEGIN
{
	printf("%d\n", Y);
	exit(0);
}
