/* Explicit declarations: typed before use, read as 0 or "" until assigned. */
#pragma D option quiet

int x;
string g;
self int depth;
this string label;
int sizes[string, int];

BEGIN
{
	printf("%d [%s] %d\n", x, g, self->depth);
	this->label = "decl";
	sizes["a", 1] = 5;
	self->depth = sizes["a", 1] * 2;
	printf("%s %d %d %d\n", this->label, sizes["a", 1], sizes["a", 2], self->depth);
	exit(0);
}
