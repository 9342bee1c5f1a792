/* flags: -xerrtags */
nosuchprovider:::entry
{
	trace(1);
}
