/* flags: -q */
/* $sid may be 0 when dtrace runs in a session begun outside its pid namespace. */
BEGIN
{
	printf("%d %d\n", $sid >= 0, $pgid > 0);
	exit(0);
}
