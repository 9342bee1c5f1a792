/* flags: -q */
/* The probe-description variables of a tracepoint as DTrace for Linux names it. */
int n;

sdt:sched::sched_switch
/n++ == 0/
{
	printf("%s:%s:%s:%s\n", probeprov, probemod, probefunc, probename);
	exit(0);
}
