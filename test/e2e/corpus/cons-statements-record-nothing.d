/* flags: -x cpu=0 */
/*
 * As DTrace's dtrace_ecb_resize: a clause whose actions record no data -- assignments, and
 * actions the kernel carries out, such as raise() -- writes no record, so dtrace prints no line
 * for it (guide scripts such as `syscall::read:entry { self->ts = timestamp; }` run unquiet).
 * Clauses with data, exit() and the empty clause (the default action) print theirs.
 */
BEGIN
{
	x = 1;
	self->y = 2;
	a["k"] = 3;
}

BEGIN
{
	@ = count();
	x++;
}

BEGIN
{
}

BEGIN
{
	trace(x + self->y + a["k"]);
}

BEGIN
{
	exit(0);
}
