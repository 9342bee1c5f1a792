/* flags: -q */
/* pi_processor_type is the machine's name, as uname -m gives it. */
BEGIN
{
	printf("[%s]\n", stringof(curcpu->cpu_info.pi_processor_type));
	this->p = curcpu;
	printf("%s\n", this->p->cpu_info.pi_processor_type);
	exit(0);
}
