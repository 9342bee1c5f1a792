/* The first use of an associative array fixes its key signature. */
BEGIN
{
	a[1, "x"] = 1;
	a[2] = 2;
}
