/* flags: -q -x defaultargs */
/* $1 is an integer constant too (0 here, with defaultargs and no argument): the test folds. */
BEGIN
{
	$1 ? printf("given\n") : printf("not given\n");
	$1 == 0 ? trace("zero\n") : 1;
	exit(0);
}
