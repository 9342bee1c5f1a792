/* flags: -xerrtags -x amin=stable/stable */
/* The names in any case; the class left out is Common. htons() is Evolving. */
BEGIN
{
	trace(htonl(1));
}
