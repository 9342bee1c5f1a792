BEGIN
{
	commit(1);
	printf("after commit\n");
}
