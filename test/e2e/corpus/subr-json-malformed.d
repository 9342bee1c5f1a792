/* flags: -q */
/* json() gives NULL for text that is not JSON as DTrace's pass reads it -- no top-level object
   or array, a missing colon, a bad word or number, an unbalanced nested value, a bad \u escape,
   text that ends first -- but a value found before the text goes wrong is still returned. */
BEGIN
{
	printf("%d %d %d\n", json("42", "a") == (char *)0, json("{\"a\" 1}", "a") == (char *)0,
	    json("{\"a\":tru}", "a") == (char *)0);
	printf("%d %d %d\n", json("{\"a\":0x10}", "a") == (char *)0, json("{\"a\":1+2}", "a") == (char *)0,
	    json("{\"a\":\"\\u12g4\"}", "a") == (char *)0);
}

BEGIN
{
	printf("%d %d %d\n", json("{\"x\":[1]],\"a\":1}", "a") == (char *)0, json("{\"a\":1", "a") == (char *)0,
	    json("{a:1}", "a") == (char *)0);
	printf("[%s] [%s]\n", json("{\"a\":1,}", "a"), json("{\"a\":\"v\" junk", "a"));
	exit(0);
}
