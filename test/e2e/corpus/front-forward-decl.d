/* flags: -q */
struct later;
struct holder { struct later *p; };
struct later { int a; int b; };
BEGIN
{
	printf("%d %d\n", sizeof(struct holder), sizeof(struct later));
	exit(0);
}
