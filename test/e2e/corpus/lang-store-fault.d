/* flags: -q */
/* Stores outside scratch memory fault as DTrace's dtrace_canstore refuses them; tracing goes on.
   A misaligned store into scratch is no fault: DTrace for Linux (the reference) makes it. */
BEGIN
{
	*(int *)0 = 1;
	printf("not reached\n");
}

BEGIN
{
	kaddr = (uint64_t)curthread;
	this->k = (int *)curthread;
	*this->k = 1;
	printf("not reached\n");
}

BEGIN
{
	this->w = (int *)alloca(8);
	base = (uint64_t)this->w;
	*(int *)((char *)this->w + 2) = 1;
	printf("misaligned %d\n", *(int *)((char *)this->w + 2));
}

BEGIN
{
	printf("tracing goes on\n");
	exit(0);
}

ERROR
{
	printf("ERROR: fault %d in action #%d at DIF offset %d: %s\n", arg4, arg2, arg3,
	    arg5 == 0 ? "address 0" : arg5 == kaddr ? "curthread" : arg5 == base + 2 ? "scratch + 2" : "other");
}
