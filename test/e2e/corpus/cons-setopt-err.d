/* flags: -q */
/*
 * An option setopt() cannot set is libdtrace's error on the enabled probe, and tracing goes on:
 * an unknown name; bufsize, fixed once tracing runs; a value the option refuses; a compiler flag,
 * which takes no value while setopt() always passes one ("1" when none is given).
 */
BEGIN
{
	setopt("nosuch");
	setopt("bufsize", "1m");
	setopt("quiet", "um, no");
	setopt("switchrate", "0.5hz");
	setopt("defaultargs");
	printf("still tracing\n");
}
BEGIN
{
	printf("and on\n");
	exit(0);
}
