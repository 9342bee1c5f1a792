/* flags: -q 10 hello */
BEGIN
{
	printf("%d %s\n", $1 + 1, $$2);
	exit(0);
}
