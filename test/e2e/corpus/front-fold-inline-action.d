/* flags: -q */
/*
 * A conditional whose test is an integer constant (literals, integer inlines) is folded while
 * parsing, so its chosen branch may be an action: the option-switch style of many published
 * scripts.
 */
inline int SHOW = 1;
inline int HIDE = 0;
inline int LEVEL = SHOW + 1;

BEGIN
{
	SHOW ? printf("shown %d\n", 1) : 1;
	HIDE ? printf("hidden\n") : printf("alternate\n");
	LEVEL == 2 ? printf("level two\n") : 1;
	!HIDE && SHOW ? @counts["folded"] = count() : 1;
	HIDE ? @counts["never"] = count() : 1;
	(SHOW ? HIDE : SHOW) ? trace("no") : trace("nested\n");
	x = SHOW ? 7 : 8;
	printf("x = %d\n", x);
	exit(0);
}

END
{
	SHOW ? printa("%s %@d\n", @counts) : 1;
}
