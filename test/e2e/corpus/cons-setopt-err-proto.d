/* setopt() takes one or two strings: void setopt(const char *, [const char *]). */
BEGIN
{
	setopt("quiet", 1);
}
