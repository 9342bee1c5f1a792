/* Thread-locals: typed by their first assignment, seen by every clause on the thread, freed by 0. */
#pragma D option quiet

BEGIN
{
	self->n = 41;
	self->name = "thread";
	self->n++;
	this->name = "clause";
}

BEGIN
{
	self->n += 8;
	printf("%d %s %s\n", self->n, self->name, this->name);
	self->n = 0;
}

BEGIN
/self->n == 0/
{
	printf("freed: %d\n", self->n);
	self->count++;
	++self->count;
	self->count <<= 4;
	printf("count: %d\n", self->count--);
	printf("count: %d\n", self->count);
	exit(0);
}
