/* Clause-locals keep their values across the clauses of one probe firing (clause.d of the DTrace guide, on BEGIN). */
#pragma D option quiet

int me;			/* an integer global variable */
this int foo;		/* an integer clause-local variable */

BEGIN
{
	this->foo = (me % 3 == 0) ? 10 : this->foo;
	printf("Clause 1 is number %d; foo is %d\n", me++ % 3, this->foo++);
}

BEGIN
{
	this->foo = (me % 3 == 0) ? 20 : this->foo;
	printf("Clause 2 is number %d; foo is %d\n", me++ % 3, this->foo++);
}

BEGIN
{
	this->foo = (me % 3 == 0) ? 30 : this->foo;
	printf("Clause 3 is number %d; foo is %d\n", me++ % 3, this->foo++);
	exit(0);
}
