/* flags: -q */
/* Assigning a struct or union through a pointer copies it whole (DIF COPYS). */
struct pt {
	int x;
	int y;
};

union u {
	uint64_t all;
	struct pt p;
};

struct box {
	struct pt lo;
	struct pt hi;
};

BEGIN
{
	this->a = (struct pt *)alloca(sizeof (struct pt));
	this->b = (struct pt *)alloca(sizeof (struct pt));
	this->a->x = 1;
	this->a->y = 2;
	*this->b = *this->a;
	this->a->x = 10;
	printf("%d %d %d\n", this->b->x, this->b->y, this->a->x);

	this->bx = (struct box *)alloca(sizeof (struct box));
	this->bx->hi = *this->b;
	this->bx->lo = this->bx->hi;
	this->bx->lo.y++;
	printf("box %d %d %d %d\n", this->bx->lo.x, this->bx->lo.y, this->bx->hi.x, this->bx->hi.y);

	this->u = (union u *)alloca(2 * sizeof (union u));
	this->u->p = *this->a;
	this->u[1] = this->u[0];
	printf("union %x\n", this->u[1].all);
	exit(0);
}
