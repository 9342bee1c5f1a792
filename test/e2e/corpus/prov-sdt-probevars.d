/* flags: -q -x cpu=0 */
/* The probe-description variables of a tracepoint as DTrace for Linux names it. */
/* (One CPU: n++ on two CPUs at once could both see 0, in DTrace as here.) */
int n;

sdt:sched::sched_switch
/n++ == 0/
{
	printf("%s:%s:%s:%s\n", probeprov, probemod, probefunc, probename);
	exit(0);
}
