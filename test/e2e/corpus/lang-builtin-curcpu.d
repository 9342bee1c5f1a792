/* flags: -q */
/*
 * curcpu points at the firing CPU's cpuinfo_t: on every CPU its cpu_id is cpu and its
 * cpu_chip and cpu_lgrp are chip and lgrp. The counts vary, so printa() leaves them out.
 */
profile-997
{
	@[curcpu->cpu_id == cpu, curcpu->cpu_chip == chip, curcpu->cpu_lgrp == lgrp, curcpu != NULL] = count();
}

tick-200ms
{
	exit(0);
}

END
{
	printa("%d %d %d %d\n", @);
}
