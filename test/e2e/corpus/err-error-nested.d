/* flags: -q */
/* A fault inside an ERROR clause abandons that clause (its printf too: the ECB's record is
   discarded, as DTrace discards it); it does not fire ERROR again. */
BEGIN
{
	x = *(char *)16;
}

ERROR
{
	printf("first %x\n", arg5);
	y = *(char *)32;
	printf("not reached\n");
}

ERROR
{
	printf("second\n");
	exit(0);
}
