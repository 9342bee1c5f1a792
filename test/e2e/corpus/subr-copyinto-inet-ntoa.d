/* flags: -q -c test/e2e/progs/inet6-addrs.py */
/* copyinto() of user bytes into alloca() memory, then inet_ntoa() of it: the IPv4 tails of the
   v4-compatible and v4-mapped addresses inet6-addrs.py writes (expected output as the reference
   DTrace for Linux prints it). */

syscall::write:entry
/pid == $target && arg2 == 208/
{
	this->a = (ipaddr_t *)alloca(sizeof (ipaddr_t));
	copyinto(arg1 + 8 * 16 + 12, sizeof (ipaddr_t), this->a);
	printf("%s\n", inet_ntoa(this->a));
	copyinto(arg1 + 9 * 16 + 12, sizeof (ipaddr_t), this->a);
	printf("%s\n", inet_ntoa(this->a));
}
