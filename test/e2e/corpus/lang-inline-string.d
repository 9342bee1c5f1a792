/* flags: -q */
inline string greeting = "hi";

BEGIN
{
	printf("%s\n", greeting);
	exit(0);
}
