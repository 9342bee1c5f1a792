/* flags: -q */
/* An address in no module prints as hex in a 50-column field, in records and in keys. */
BEGIN
{
	sym(0);
	printf("|\n");
	mod(0);
	printf("|\n");
	uaddr(0);
	printf("|\n");
	usym(0);
	printf("|\n");
	umod(0);
	printf("|\n");
	@[func(0)] = count();
	@[func(0)] = count();
	exit(0);
}
