/* flags: -q */
typedef int arr_t[10];

BEGIN
{
	printf("%d\n", sizeof (arr_t));
	exit(0);
}
