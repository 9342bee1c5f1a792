/* flags: -q */
/* regs[] at a profile probe are the interrupted registers: R_PC is the PC arg0/arg1 report. */
profile-997
{
	@[regs[R_PC] == (arg0 != 0 ? arg0 : arg1) ? "regs[R_PC] is the interrupted PC" : "regs[R_PC] differs"] = count();
}

tick-300ms
{
	printa("%s\n", @);
	exit(0);
}
