/* flags: -q */
/*
 * A thread-local or associative array element holding a string is cleared by assigning it 0
 * (or NULL), as any dynamic variable is: the null pointer constant is compatible with D's
 * string, a char array.
 */
BEGIN
{
	self->name = "first";
	names["a"] = "alpha";
	names["b"] = "beta";
	self->name = 0;
	names["a"] = NULL;
	printf("%d %d %s\n", self->name == NULL, names["a"] == NULL, names["b"]);
	self->name = "again";
	printf("%s\n", self->name);
	exit(0);
}
