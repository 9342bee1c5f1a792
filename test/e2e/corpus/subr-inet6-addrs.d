/* flags: -q -c test/e2e/progs/inet6-addrs.py */
/* inet_ntoa6() and inet_ntop(AF_INET6) of the addresses the workload writes, 16 bytes each:
   ::, ::1, a full address, zero runs (the longest, the first of equals, one group, at the end),
   v4-compatible and v4-mapped (inet_ntoa6 gives the quad alone, inet_ntop the whole text). */

syscall::write:entry
/pid == $target && arg2 == 208/
{
	this->p = (void *)copyin(arg1 + 0, 16);
	printf("%-2d %s %s\n", 0, inet_ntoa6(this->p), inet_ntop(10, this->p));
}

syscall::write:entry
/pid == $target && arg2 == 208/
{
	this->p = (void *)copyin(arg1 + 16, 16);
	printf("%-2d %s %s\n", 1, inet_ntoa6(this->p), inet_ntop(10, this->p));
}

syscall::write:entry
/pid == $target && arg2 == 208/
{
	this->p = (void *)copyin(arg1 + 32, 16);
	printf("%-2d %s %s\n", 2, inet_ntoa6(this->p), inet_ntop(10, this->p));
}

syscall::write:entry
/pid == $target && arg2 == 208/
{
	this->p = (void *)copyin(arg1 + 48, 16);
	printf("%-2d %s %s\n", 3, inet_ntoa6(this->p), inet_ntop(10, this->p));
}

syscall::write:entry
/pid == $target && arg2 == 208/
{
	this->p = (void *)copyin(arg1 + 64, 16);
	printf("%-2d %s %s\n", 4, inet_ntoa6(this->p), inet_ntop(10, this->p));
}

syscall::write:entry
/pid == $target && arg2 == 208/
{
	this->p = (void *)copyin(arg1 + 80, 16);
	printf("%-2d %s %s\n", 5, inet_ntoa6(this->p), inet_ntop(10, this->p));
}

syscall::write:entry
/pid == $target && arg2 == 208/
{
	this->p = (void *)copyin(arg1 + 96, 16);
	printf("%-2d %s %s\n", 6, inet_ntoa6(this->p), inet_ntop(10, this->p));
}

syscall::write:entry
/pid == $target && arg2 == 208/
{
	this->p = (void *)copyin(arg1 + 112, 16);
	printf("%-2d %s %s\n", 7, inet_ntoa6(this->p), inet_ntop(10, this->p));
}

syscall::write:entry
/pid == $target && arg2 == 208/
{
	this->p = (void *)copyin(arg1 + 128, 16);
	printf("%-2d %s %s\n", 8, inet_ntoa6(this->p), inet_ntop(10, this->p));
}

syscall::write:entry
/pid == $target && arg2 == 208/
{
	this->p = (void *)copyin(arg1 + 144, 16);
	printf("%-2d %s %s\n", 9, inet_ntoa6(this->p), inet_ntop(10, this->p));
}

syscall::write:entry
/pid == $target && arg2 == 208/
{
	this->p = (void *)copyin(arg1 + 160, 16);
	printf("%-2d %s %s\n", 10, inet_ntoa6(this->p), inet_ntop(10, this->p));
}

syscall::write:entry
/pid == $target && arg2 == 208/
{
	this->p = (void *)copyin(arg1 + 176, 16);
	printf("%-2d %s %s\n", 11, inet_ntoa6(this->p), inet_ntop(10, this->p));
}

syscall::write:entry
/pid == $target && arg2 == 208/
{
	this->p = (void *)copyin(arg1 + 192, 16);
	printf("%-2d %s %s\n", 12, inet_ntoa6(this->p), inet_ntop(10, this->p));
}

syscall::write:entry
/pid == $target && arg2 == 208/
{
	exit(0);
}
