/* flags: -q */
BEGIN
{
	printf("%d %d\n", $uid == uid, $gid == gid);
	exit(0);
}
