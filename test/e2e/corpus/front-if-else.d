/* flags: -q */
BEGIN
{
	x = 3;
	if (x > 2) {
		printf("big\n");
	} else
		printf("small\n");
	if (x == 1)
		printf("one\n");
	else if (x == 3)
		printf("three\n");
	else
		printf("other\n");
	printf("after\n");
}

BEGIN
/x == 3/
{
	if (x < 0)
		printf("negative\n");
	if (x > 0) {
		this->y = x * 10;
		if (this->y == 30)
			printf("nested %d\n", this->y);
	}
	exit(0);
}
