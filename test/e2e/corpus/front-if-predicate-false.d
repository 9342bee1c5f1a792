/* flags: -q */
BEGIN
/0/
{
	if (1)
		printf("not reached\n");
	else
		printf("not reached either\n");
}

BEGIN
{
	if (0) {
	}
	printf("done\n");
	exit(0);
}
