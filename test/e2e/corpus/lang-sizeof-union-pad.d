/* flags: -q */
union u { char c[5]; int i; };

BEGIN
{
	printf("%d\n", sizeof (union u));
	exit(0);
}
