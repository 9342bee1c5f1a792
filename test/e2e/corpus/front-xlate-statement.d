/* flags: -q */
/* Agrees with the reference DTrace (output, error tag and message, exit status). */
translator lwpsinfo_t < int i >
{
	pr_flag = i;
};
BEGIN
{
	xlate < lwpsinfo_t * > (0);
	printf("no effect\n");
	exit(0);
}
