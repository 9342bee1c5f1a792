/* flags: -q */
/* The register indices of regs.d, DTrace for Linux's on x86-64. */
BEGIN
{
	printf("%d %d %d %d %d %d %d %d\n", R_PC, R_SP, R_FP, R_PS, R_R0, R_R1, R_RDI, R_RSI);
	printf("%d %d %d %d %d %d %d %d\n", R_R15, R_RAX, R_ERR, R_CS, R_SS, R_DS, R_GS, R_TRAPNO);
	printf("%d %d %d %d\n", R_EIP, R_ESP, R_EAX, R_EFL);
	exit(0);
}
