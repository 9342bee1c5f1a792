/* flags: -q */
BEGIN
/pid == $pid && ppid == $ppid && uid == $uid/
{
	printf("%s %d\n", execname, tid == pid);
	exit(0);
}
