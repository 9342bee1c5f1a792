/* flags: -q */
/* Global struct and union variables: members written and read, whole-struct assignment, kept across firings. */
struct pt {
	int x;
	int y;
};
struct pt a, b;
union word {
	int i;
	char c[4];
} w;

BEGIN
{
	a.x = 10;
	a.y = 20;
	p = (struct pt *)alloca(sizeof (struct pt));
	p->x = 7;
	p->y = 8;
	b = *p;
	w.i = 0x41424344;
}

BEGIN
/a.x == 10/
{
	printf("a = (%d, %d) b = (%d, %d) w.c[0] = %c\n", a.x, a.y, b.x, b.y, w.c[0]);
	b = a;
	b.y++;
	printf("b = (%d, %d) sizeof (b) = %d\n", b.x, b.y, sizeof (b));
}

tick-10ms
{
	a.x++;
}

tick-10ms
/a.x == 13/
{
	printf("a.x reached %d\n", a.x);
	exit(0);
}
