/* flags: -xerrtags */
/* An array member is not assignable. */
struct rec {
	char name[8];
};

BEGIN
{
	this->r = (struct rec *)alloca(sizeof (struct rec));
	this->r->name = "abc";
}
