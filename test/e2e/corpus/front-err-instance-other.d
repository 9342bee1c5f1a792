/* flags: -q */
/* RFD 2: a description naming another instance matches no probe of this host, and says so. */
other:dtrace:::BEGIN
{
	exit(0);
}
