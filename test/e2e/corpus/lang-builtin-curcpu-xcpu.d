/* flags: -q -x cpu=0 */
/* Under -x cpu=0 every probe fires on CPU 0: curcpu is CPU 0's cpuinfo_t. */
BEGIN
{
	printf("%d %d\n", curcpu->cpu_id, cpu);
	printf("%d\n", curcpu->cpu_id == cpu);
	exit(0);
}
