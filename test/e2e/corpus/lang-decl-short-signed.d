/* flags: -q */
short s;

BEGIN
{
	s = 32767;
	s++;
	printf("%d\n", s);
	exit(0);
}
