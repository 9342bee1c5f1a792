/* flags: -xerrtags */
/* A thread-local that holds a struct cannot take an integer. */
struct pt {
	int x;
};

BEGIN
{
	self->sp = *(struct pt *)alloca(sizeof (struct pt));
	self->sp = 1;
}
