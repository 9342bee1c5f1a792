/* Assigning 0 deletes an associative array element or a thread-local; reading it again gives 0. */
#pragma D option quiet

BEGIN
{
	ts["a"] = 1;
	ts["b"] = 2;
	self->x = 7;
}

BEGIN
{
	ts["a"] = 0;
	self->x = 0;
}

BEGIN
{
	printf("%d %d %d\n", ts["a"], ts["b"], self->x);
	ts["a"] = 3;
	printf("%d\n", ts["a"]);
	exit(0);
}
