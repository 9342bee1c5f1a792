/* flags: -q */
/* Clause-local structs, nested ones too, are written member by member and traced as a
   hex-and-ASCII dump, as a global union is (expected output taken from the reference DTrace
   for Linux). */
union u { int i; char c[4]; };
union u x;
struct coords { int x, y; };
struct outer { struct coords a; struct coords b; };
this struct coords q;
this struct outer o;
BEGIN
{
	x.i = 0x41424344;
	trace(x);
	this->q.x = 15; this->q.y = -1;
	this->o.a.x = 1; this->o.b.y = 2; this->o.b.x = 0; this->o.a.y = this->q.x + 1;
	printf("%d %d %d %d %d %d\n", this->q.x, this->q.y, this->o.a.x, this->o.a.y, this->o.b.x, this->o.b.y);
	trace(this->q);
	trace(this->o);
	exit(0);
}
