/* flags: -q */
/* Agrees with the reference DTrace (output and exit status). */
BEGIN
{
	printf("%d %d %d %d %d\n", DTRACEFLT_UNKNOWN, DTRACEFLT_BADADDR, DTRACEFLT_BADALIGN, DTRACEFLT_ILLOP, DTRACEFLT_DIVZERO);
	printf("%d %d %d %d %d\n", DTRACEFLT_NOSCRATCH, DTRACEFLT_KPRIV, DTRACEFLT_UPRIV, DTRACEFLT_TUPOFLOW, DTRACEFLT_BADSTACK);
	exit(0);
}
