BEGIN
{
	printf("recorded first\n");
	speculate(1);
}
