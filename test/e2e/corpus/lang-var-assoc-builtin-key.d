/* flags: -q */
BEGIN
{
	a[probename] = 1;
	printf("%d\n", a["BEGIN"]);
	exit(0);
}
