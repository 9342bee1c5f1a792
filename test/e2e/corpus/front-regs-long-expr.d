/* flags: -q */
/* A sum of 20 terms with subroutine calls, variables and products compiles in DIF's 7 registers. */
BEGIN
{
	x = 3;
	self->t = 4;
	this->c = 5;
	printf("%d\n", strlen("a") + strlen("bb") + strlen("ccc") + strlen(strjoin("dd", "dd")) +
	    x * 2 + (x + 1) * (x + 2) + self->t + this->c + strlen(substr("abcdef", 1, 3)) +
	    (x << 2) + (self->t % 3) + 1 + 2 + 3 + 4 + 5 + 6 + 7 + 8 + 9);
	printf("%d\n", 1 + (2 + (3 + (4 + (5 + (6 + 7))))));
	printf("%s\n", strjoin(strjoin("a", "b"), strjoin("c", x == 3 ? "d" : "e")));
	exit(0);
}
