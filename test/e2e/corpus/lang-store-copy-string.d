/* flags: -q */
/* Assigning a string through a pointer copies it: a constant's length and its NUL, any other
   string strsize bytes, a char array its size (DIF COPYS with the source's size, as DTrace). */
struct rec {
	string name;
};

BEGIN
{
	this->r = (struct rec *)alloca(sizeof (struct rec));
	this->r->name = "abcdef";
	this->r->name = "xy";
	printf("%s %c\n", this->r->name, ((char *)this->r)[3]);
	this->r->name = strjoin("dt", "race");
	printf("%s %d\n", this->r->name, ((char *)this->r)[7]);
	this->r->name = curthread->comm;
	printf("%s\n", this->r->name);
	this->s = (string *)alloca(sizeof (string));
	*this->s = this->r->name;
	printf("%s %d\n", *this->s, strlen(*this->s));
	exit(0);
}
