BEGIN
{
	trace(uregs[42]);
}
