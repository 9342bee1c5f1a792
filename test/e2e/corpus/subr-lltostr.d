/* flags: -q */
BEGIN
{
	printf("[%s] [%s] [%s] [%s] [%s]\n", lltostr(0), lltostr(-42), lltostr(12345678901), lltostr(255, 16), lltostr(8, 8));
}

BEGIN
{
	printf("[%s] [%s] [%s] [%s]\n", lltostr(0, 16), lltostr(5, 2), lltostr(-1, 16), lltostr(-9223372036854775807 - 1));
	exit(0);
}
