/* flags: -q */
/* A struct or string copy faults as DTrace's COPYS does: a target outside scratch memory (or too
   large for it) is an invalid address, and so is a source that cannot be read. */
struct pt {
	int x;
	int y;
};

BEGIN
{
	this->a = (struct pt *)alloca(sizeof (struct pt));
	*(struct pt *)0 = *this->a;
	printf("not reached\n");
}

BEGIN
{
	kaddr = (uint64_t)curthread;
	this->a = (struct pt *)alloca(sizeof (struct pt));
	*(struct pt *)curthread = *this->a;
	printf("not reached\n");
}

BEGIN
{
	this->a = (struct pt *)alloca(sizeof (struct pt));
	*this->a = *(struct pt *)0x2000;
	printf("not reached\n");
}

BEGIN
{
	this->t = (struct task_struct *)alloca(8);
	base = (uint64_t)this->t;
	*this->t = *curthread;
	printf("not reached\n");
}

BEGIN
{
	printf("tracing goes on\n");
	exit(0);
}

ERROR
{
	printf("ERROR: fault %d in action #%d at DIF offset %d: %s\n", arg4, arg2, arg3,
	    arg5 == 0 ? "address 0" : arg5 == kaddr ? "curthread" : arg5 == 0x2000 ? "0x2000" :
	    arg5 == base ? "scratch" : "other");
}
