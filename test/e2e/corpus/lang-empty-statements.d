/* flags: -q */
BEGIN
{
	;
	;
	exit(0);
}
