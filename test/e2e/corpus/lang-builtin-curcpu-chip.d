/* flags: -q -x cpu=0 */
/*
 * CPU 0 sits on physical package 0 and NUMA node 0; Linux has no processor sets, so cpu_pset
 * is 0, as DTrace for Linux gives it. The CPU is on-line.
 */
BEGIN
{
	printf("chip %d %d\n", chip, curcpu->cpu_chip);
	printf("lgrp %d %d\n", lgrp, curcpu->cpu_lgrp);
	printf("pset %d\n", curcpu->cpu_pset);
	printf("online %d\n", curcpu->cpu_info.pi_state == P_ONLINE);
	printf("clock %d\n", curcpu->cpu_info.pi_clock > 0);
	exit(0);
}
