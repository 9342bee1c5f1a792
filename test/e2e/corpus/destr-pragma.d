/* flags: -q */
/* #pragma D option destructive allows destructive actions as -w does. */
#pragma D option destructive

BEGIN
{
	system("printf '%%s\\n' ok");
	exit(0);
}
