/* flags: -q */
/* A script may declare a USDT provider (for dtrace -h/-G) and function prototypes, static ones */
/* being extern ones; neither enables anything. */
provider myapp {
	probe request__start(int, char *);
};
static int helper(int);
int other(char *, long);

BEGIN
{
	printf("ok\n");
	exit(0);
}
