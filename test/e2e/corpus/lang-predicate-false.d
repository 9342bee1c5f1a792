/* flags: -q */
BEGIN
/0/
{
	printf("never\n");
}

BEGIN
{
	exit(0);
}
