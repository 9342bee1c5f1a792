/* flags: -q */
/* DTrace does not promote narrow integers to int: the operand of greater rank (bits, plus one
   if unsigned) gives the type, so unsigned char + unsigned char is unsigned char and prints
   truncated, while a comparison still sees the whole 64-bit register. Shifts keep the left
   operand's type, unary - ~ ! the operand's; a variable takes the narrow type it is assigned.
   (expected output taken from the reference DTrace for Linux) */
unsigned char C; signed char c; unsigned short S;
BEGIN
{
	c = -2; C = 253; S = -4;
	printf("%d %d %d %d %d\n", C, c + C, C + C, S + S, C * 2);
	printf("%d %d\n", (C + C) > 255, C - 254);
	self->uc = (unsigned char)250; this->uc = (unsigned char)251; a[1] = (unsigned char)252;
	printf("%d %d %d\n", self->uc + self->uc, this->uc + this->uc, a[1] + a[1]);
	y = C + C; x = (char)200;
	printf("%d %d %d %d\n", y, x, x + x, (long)(C + C));
	printf("%d %d %d %d\n", -C, ~C, C << 1, C / 2);
	printf("%d %d\n", (unsigned char)1 < (char)-1, (unsigned short)1 < (short)-1);
	trace(C + C); trace(c + c); trace(-(unsigned short)1); trace((unsigned char)255 >> 1);
	trace(!(short)5); trace((short)-1 + (unsigned char)1);
	printf("\n");
	exit(0);
}
