/* flags: -q */
/* print(): "type value" a line; integers in hex, chars quoted, a string bare in quotes. */
BEGIN
{
	print(5);
	print(0);
	print((unsigned char)200);
	print((short)-1);
	print((char)65);
	print((char)0);
	print((char)7);
	print(-1);
	print((uint64_t)0xdeadbeef);
	print("hello");
	print((void *)0x1234);
	print((int *)0);
	exit(0);
}
