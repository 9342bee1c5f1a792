/* flags: -q */
/* NULL is D's built-in alias for address 0: an int that pointers compare with and take. */
BEGIN
{
	x = (int *)NULL;
	p = (char *)alloca(8);
	self->q = (char *)alloca(4);
	printf("sizeof (NULL) %d, NULL %d\n", sizeof (NULL), NULL);
	printf("%d %d %d %d\n", x == NULL, p != NULL, NULL == p, self->q != NULL);
	printf("%d %d\n", arg0 != NULL, timestamp != NULL);
	p = NULL;
	printf("%d\n", p == NULL ? 1 : 0);
}

BEGIN
/x == NULL/
{
	/* badptr.d, from DTrace's guide: the load faults and ERROR fires. */
	y = *x;
}

ERROR
{
	printf("ERROR: fault %d at address %d\n", arg4, arg5);
	exit(0);
}
