/* flags: -xerrtags */
BEGIN
{
	nosuchfunc(1);
}
