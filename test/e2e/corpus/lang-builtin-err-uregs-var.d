BEGIN
{
	x = R_PC;
	trace(uregs[x]);
}
