/* flags: -q */
BEGIN
{
	this->v = 5;
}

BEGIN
{
	printf("%d\n", this->v);
	exit(0);
}
