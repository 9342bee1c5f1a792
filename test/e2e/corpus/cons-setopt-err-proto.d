/* setopt() takes one or two strings: void setopt(char *, [char *]), as the reference DTrace shows it. */
BEGIN
{
	setopt("quiet", 1);
}
