/* flags: -q -x amin=Evolving/Evolving/Common */
/* -x amin: a program whose identifiers and calls are all at least Evolving compiles and runs. */
BEGIN
{
	printf("%d %d\n", htons(0x0102) == 0x0201, pid > 0);
	exit(0);
}
