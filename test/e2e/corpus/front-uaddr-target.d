/* flags: -q -c /bin/true */
/* With -c (or -p), %A takes an integer, as DTraceToolkit's hotuser does with arg1. */
BEGIN
{
	@pc[0x1234] = count();
	printf("[%A]\n", 0x1234);
}

END
{
	printa("%A %@d\n", @pc);
}
