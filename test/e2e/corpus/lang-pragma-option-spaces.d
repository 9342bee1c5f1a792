#pragma D option   quiet

BEGIN
{
	printf("ok\n");
	exit(0);
}
