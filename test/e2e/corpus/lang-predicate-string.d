/* flags: -q */
BEGIN
/probename == "BEGIN"/
{
	printf("match\n");
	exit(0);
}
