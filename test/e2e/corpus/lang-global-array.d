/* flags: -q */
/* Global scalar arrays: declared with a size, indexed by constants and variables (an array is
   never assigned whole: DTrace refuses that with D_OP_ARRFUN). */
int arr[10];
char name[8];
int other[10];

BEGIN
{
	arr[2] = 7;
	arr[9] = arr[2] * 3;
	i = 4;
	arr[i] = arr[i - 2] + 1;
	name[0] = 'h';
	name[1] = 'i';
	other[9] = arr[9];
	printf("%d %d %d %d %d\n", arr[2], arr[9], arr[4], arr[0], other[9]);
	printf("%d %d %s\n", sizeof (arr), sizeof (name), stringof(name));
	exit(0);
}
