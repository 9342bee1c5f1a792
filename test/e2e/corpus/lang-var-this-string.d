/* flags: -q */
BEGIN
{
	this->s = strjoin("ab", "cd");
	printf("%s\n", this->s);
	exit(0);
}
