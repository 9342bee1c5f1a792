/* flags: -q */
/* strtok(NULL, delims) goes on tokenizing the previous string: NULL passes as its const char *. */
BEGIN
{
	this->first = strtok("alpha beta gamma", " ");
	this->second = strtok(NULL, " ");
	this->third = strtok(0, " ");
	printf("%s|%s|%s\n", this->first, this->second, this->third);
	exit(0);
}
