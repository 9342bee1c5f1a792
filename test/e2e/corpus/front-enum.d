/* flags: -q */
enum color { RED, GREEN = 5, BLUE, WHITE = BLUE * 2 };
BEGIN
{
	printf("%d %d %d %d %d\n", RED, GREEN, BLUE, WHITE, sizeof(enum color));
	printf("%d\n", BLUE + 1 == 7);
	exit(0);
}
