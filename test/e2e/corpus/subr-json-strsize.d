/* flags: -q -x strsize=32 */
/* json() reads at most strsize bytes of the text: a value inside them is found, one that ends
   past them (or lies beyond) is NULL, as when the text itself ends. */
BEGIN
{
	printf("[%s]\n", json("{\"first\":\"one\",\"second\":\"two-and-more\",\"third\":3}", "first"));
	printf("[%d]\n", json("{\"first\":\"one\",\"second\":\"two-and-more\",\"third\":3}", "second") == (char *)0);
}

BEGIN
{
	printf("[%d]\n", json("{\"first\":\"one\",\"second\":\"two-and-more\",\"third\":3}", "third") == (char *)0);
	printf("[%s]\n", json("{\"k\":[0,1,2,3,4,5,6,7,8,9,10,11,12]}", "k[8]"));
}

BEGIN
{
	printf("[%d]\n", json("{\"k\":[0,1,2,3,4,5,6,7,8,9,10,11,12]}", "k[12]") == (char *)0);
	exit(0);
}
