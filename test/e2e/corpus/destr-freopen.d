/* flags: -q -w */
/* freopen() (destructive) sends what follows -- the rest of the record, later records, system()'s
   output and the aggregations at exit -- to the file it names (as the reference DTrace for Linux
   does); test/e2e/consumer.test.ts reads such a file. */
BEGIN
{
	printf("one\n");
	freopen("/dev/%s", "null");
	printf("two\n");
	trace(3);
	system("echo three");
	@a = count();
	exit(0);
}
