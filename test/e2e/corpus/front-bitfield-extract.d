/* flags: -q */
struct bf { unsigned int a : 3; int b : 5; unsigned int c : 24; };
BEGIN
{
	this->p = (struct bf *)&curthread->pid;
	printf("%d\n", this->p->a == (pid & 7));
	printf("%d\n", this->p->b == ((pid >> 3) & 31) - ((pid >> 3) & 16 ? 32 : 0));
	printf("%d\n", this->p->c == ((pid >> 8) & 0xffffff));
	exit(0);
}
