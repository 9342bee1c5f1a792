/* flags: -q */
self string name;

BEGIN
{
	self->name = "thread";
	printf("%s\n", self->name);
	exit(0);
}
