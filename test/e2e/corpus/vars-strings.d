/* String values are held by value in thread-locals, clause-locals and array elements. */
#pragma D option quiet

BEGIN
{
	s = "global";
	self->s = s;
	this->s = self->s;
	arr["k"] = this->s;
	s = "changed";
	self->e = execname;
	arr["e"] = self->e;
}

BEGIN
{
	printf("%s %s %s %s\n", s, self->s, this->s, arr["k"]);
	printf("%s %s %d\n", self->e, arr["e"], self->s == arr["k"]);
	printf("%d %d\n", strlen(arr["k"]), arr["k"] == "global");
	exit(0);
}
