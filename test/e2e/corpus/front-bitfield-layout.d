/* flags: -q */
struct bf { unsigned int a : 3; int b : 5; unsigned int c : 24; char d; };
struct bg { char x; int y : 30; int z : 4; };
struct bh { unsigned char a : 4; unsigned char : 0; unsigned char b : 4; };
BEGIN
{
	printf("%d %d\n", sizeof(struct bf), offsetof(struct bf, d));
	printf("%d %d\n", sizeof(struct bg), sizeof(struct bh));
	exit(0);
}
