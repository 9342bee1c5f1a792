/* flags: -q */
union u { char c; int i; long l; char buf[12]; };
struct wrap { char tag; union u val; };
BEGIN
{
	printf("%d %d %d\n", sizeof(union u), sizeof(struct wrap), offsetof(struct wrap, val));
	exit(0);
}
