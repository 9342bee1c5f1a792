/* flags: -q */
BEGIN
{
	go = 1;
}

BEGIN
/go/
{
	printf("went\n");
	exit(0);
}
