/* flags: -q */
BEGIN
{
	m[1, 2] = 3;
	m[2, 1] = 4;
	printf("%d\n", m[1, 2] * 10 + m[2, 1]);
	exit(0);
}
