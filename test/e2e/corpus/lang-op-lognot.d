/* flags: -q */
BEGIN
{
	printf("%d %d %d\n", !0, !5, !!7);
	exit(0);
}
