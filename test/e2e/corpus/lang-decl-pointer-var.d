/* flags: -q */
int *p;

BEGIN
{
	p = (int *)100;
	p++;
	printf("%d\n", (long)p);
	exit(0);
}
