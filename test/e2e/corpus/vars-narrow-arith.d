/* flags: -q */
/* A narrow integer variable holds its value as its type does, so arithmetic sees it zero- or
   sign-extended: as globals, thread-locals, clause-locals and associative-array values
   (expected output taken from the reference DTrace for Linux). */
unsigned char C; signed char c; unsigned short S; short s; unsigned int U; int I;
self unsigned char tC; self signed char tc;
this unsigned short lS; this short ls;
unsigned char aC[int]; short as[int];
BEGIN
{
	c = -2; C = -3; S = -3; s = -2; U = -3; I = -2;
	printf("%d %d\n", C, c + C);
	printf("%d %d\n", S, s + S);
	printf("%d %d %d\n", U, I + U, U + c);
	printf("%d %d %d\n", C + 0, S + 0, C * I);
	self->tC = -3; self->tc = -3;
	this->lS = -3; this->ls = -3;
	aC[0] = -3; as[0] = -3;
	printf("%d %d %d %d %d %d\n", self->tC, self->tc, this->lS, this->ls, aC[0], as[0]);
	printf("%d %d %d %d\n", self->tC + I, this->lS + I, aC[0] + I, as[0] + I);
	C++; self->tC += 4; aC[0]++;
	printf("%d %d %d\n", C, self->tC, aC[0]);
	exit(0);
}
