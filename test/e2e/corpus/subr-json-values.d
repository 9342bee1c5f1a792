/* flags: -q */
/* json(): a dotted selector with [index] follows nested objects and arrays; the value comes back
   as text -- a string without its quotes (escapes as written), a number as written, true, false
   and null, a whole object or array -- and a selector that finds nothing gives NULL. */
BEGIN
{
	j = "{\"a\":{\"b\":[1,2,{\"c\":\"deep\"}]},\"s\":\"q\\\"uote\\\\ \\u00e9\",\"n\":-12.5e+3, \"t\" : true,\"f\":false,\"z\":null,\"e\":[],\"o\":{ \"k\" : [ 10 , 20 ] }}";
}

BEGIN
{
	printf("[%s]\n", json(j, "a.b[1]"));
	printf("[%s]\n", json(j, "a.b[2].c"));
	printf("[%s]\n", json(j, "a.b"));
	printf("[%s]\n", json(j, "a"));
}

BEGIN
{
	printf("[%s]\n", json(j, "s"));
	printf("[%s]\n", json(j, "n"));
	printf("[%s] [%s] [%s]\n", json(j, "t"), json(j, "f"), json(j, "z"));
}

BEGIN
{
	printf("[%s] [%s]\n", json(j, "e"), json(j, "o.k[1]"));
	printf("[%s]\n", json("[[\"x\",\"y\"],{\"v\":3}]", "[0][1]"));
	printf("[%s]\n", json("[[\"x\",\"y\"],{\"v\":3}]", "[1].v"));
}

BEGIN
{
	printf("[%d] [%d] [%d]\n", json(j, "missing") == (char *)0, json(j, "a.b[3]") == (char *)0,
	    json(j, "s.x") == (char *)0);
	exit(0);
}
