/* flags: -q */
BEGIN
{
	printf("%s\n", strstr("haystack", "st"));
	exit(0);
}
