/* flags: -Z -xerrtags */
/*
 * Under -Z a description matching nothing compiles with no representative probe, and DTrace's
 * dt_idcook_args refuses args[] there (prp == NULL) as an unstable set: the compile stops,
 * and the message adds that the description matches no probes.
 */
nosuchprovider:::nosuchprobe
{
	trace(args[0]);
}

BEGIN
{
	x = nosuchvariable;
}
