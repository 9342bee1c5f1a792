/* flags: -q */
/* A string meets NULL as DTrace's char-array strings do (the DTrace book's keylatency.d). */
self string lastkey;
BEGIN
{
	printf("%d %d %s\n", self->lastkey != NULL, self->lastkey == 0, self->lastkey != NULL ? self->lastkey : "unset");
	self->lastkey = "k";
	s = "x";
	printf("%d %d %s\n", self->lastkey != NULL, NULL == s, self->lastkey != NULL ? self->lastkey : "unset");
	exit(0);
}
