/* flags: -q */
this int x;

BEGIN
{
	this->x = 8;
	printf("%d\n", this->x);
	exit(0);
}
