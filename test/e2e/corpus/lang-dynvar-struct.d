/* flags: -q */
/* Structs in thread-locals, clause-locals and associative arrays are copied in by value: */
/* changing the source afterwards does not change them. Kernel structs too. */
struct pt {
	int x;
	int y;
};
self struct pt sp;
struct pt pts[string];

BEGIN
{
	p = (struct pt *)alloca(sizeof (struct pt));
	p->x = 3;
	p->y = 4;
	self->sp = *p;
	this->lp = *p;
	pts["a"] = *p;
	p->x = 99;
	printf("%d %d %d %d %d\n", self->sp.x, self->sp.y, this->lp.x, pts["a"].x, pts["a"].y);
	self->se = curthread->se;
	printf("%d %d\n", self->se.load.weight == curthread->se.load.weight, sizeof (self->se) == sizeof (struct sched_entity));
}

BEGIN
{
	printf("%d %d\n", self->sp.y, this->lp.y);
	exit(0);
}
