/* flags: -q */
/* Members of a struct in alloca()'d memory are written through ->, (*p). and p[i]. */
struct point {
	int x;
	short y;
	char tag;
	uint64_t big;
	unsigned int lo : 3, mid : 5, hi : 24;
	struct point *next;
};

BEGIN
{
	this->p = (struct point *)alloca(2 * sizeof (struct point));
	this->p->x = -5;
	this->p->y = 300;
	this->p->tag = 'Z';
	this->p->big = 0x1122334455667788;
	this->p->lo = 6;
	this->p->mid = 17;
	this->p->hi = 0xabcdef;
	this->p->mid += 1;
	(*this->p).y += 1;
	this->p->x++;
	this->p[1].x = 42;
	this->p->next = &this->p[1];
	this->p->next->y = -2;
	printf("%d %d %c %x\n", this->p->x, this->p->y, this->p->tag, this->p->big);
	printf("bits %d %d %x\n", this->p->lo, this->p->mid, this->p->hi);
	printf("next %d %d\n", this->p->next->x, this->p[1].y);
	exit(0);
}
