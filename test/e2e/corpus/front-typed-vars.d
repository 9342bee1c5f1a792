/* flags: -q */
struct pair { int a; int b; };
self struct task_struct *t;
this struct pair *p;
BEGIN
{
	self->t = curthread;
	this->p = (struct pair *)&curthread->pid;
	printf("%d %d %d\n", self->t->tgid == pid, this->p->a == curthread->pid, this->p->b == pid);
	exit(0);
}
