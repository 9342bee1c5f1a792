/* flags: -q */
/* Stores of every width through pointers into alloca()'d scratch memory: *p, p[i], op=, ++/--. */
BEGIN
{
	this->b = (int8_t *)alloca(8);
	this->b[0] = 65; this->b[1] = 66; this->b[2] = 0;
	printf("bytes: %s %d\n", stringof(this->b), this->b[1]);
	this->b[3] = 200;
	printf("signed byte: %d\n", this->b[3]);

	this->h = (uint16_t *)alloca(8);
	*this->h = 0x12345;
	this->h[1] = 65535;
	this->h[1]++;
	printf("half: %x %d\n", this->h[0], this->h[1]);

	this->w = (int32_t *)alloca(16);
	*this->w = 7;
	this->w[1] = this->w[0] * 2;
	this->w[2] = -1;
	this->w[3] = 0x7fffffff;
	this->w[3] += 1;
	printf("word: %d %d %d %d\n", this->w[0], this->w[1], this->w[2], this->w[3]);

	this->x = (uint64_t *)alloca(16);
	*this->x = 0x1122334455667788;
	this->x[1] = *this->x >> 32;
	*(this->x + 1) |= 0xff00000000;
	printf("dword: %x %x\n", this->x[0], this->x[1]);

	/* The bytes of a dword, as stored (little-endian). */
	this->c = (uint8_t *)this->x;
	printf("low byte %x, high byte %x\n", this->c[0], this->c[7]);

	/* ++ and -- give the value before or after, and store it. */
	this->w[0] = 10;
	printf("%d %d %d %d\n", this->w[0]++, this->w[0], --this->w[0], this->w[0]--);
	printf("%d\n", this->w[0]);

	/* A pointer stored through a pointer. */
	this->pp = (int32_t **)alloca(8);
	*this->pp = this->w;
	(*this->pp)[1] = 99;
	printf("through **: %d\n", this->w[1]);

	/* A cast to a pointer type is writable, as in DTrace. */
	((uint8_t *)this->w)[0] = 1;
	*(int32_t *)alloca(4) = 3;
	printf("cast: %d\n", this->w[0]);
	exit(0);
}
