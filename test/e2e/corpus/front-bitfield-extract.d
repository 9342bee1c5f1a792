/* flags: -q */
/* Layout as the reference DTrace computes it (CTF: a bit-field takes whole bytes of its own):
   a is byte 0, b byte 1, c the 4 bytes at offset 4 (task_struct's tgid follows pid). */
struct bf { unsigned int a : 3; int b : 5; unsigned int c : 24; };
BEGIN
{
	this->p = (struct bf *)&curthread->pid;
	printf("%d\n", this->p->a == (pid & 7));
	printf("%d\n", this->p->b == ((pid >> 8) & 31) - ((pid >> 8) & 16 ? 32 : 0));
	printf("%d\n", this->p->c == (curthread->tgid & 0xffffff));
	printf("%d\n", sizeof(struct bf));
	exit(0);
}
