/* flags: -q */
struct inner { long x; long y; };
struct outer { char tag; struct inner in; };

BEGIN
{
	printf("%d %d\n", sizeof (struct outer), offsetof(struct outer, in));
	exit(0);
}
