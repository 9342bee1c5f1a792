/* flags: -xerrtags */
BEGIN
{
	a[1] = 1;
	a[2] = "s";
}
