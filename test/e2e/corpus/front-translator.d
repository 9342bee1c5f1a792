/* flags: -q */
struct ids { int pid; int twice; char name[16]; };
struct num { long v; char c; };

translator struct ids < struct task_struct *t > {
	pid = t->pid;
	twice = t->tgid * 2;
	name = t->comm;
};

translator struct num < int x > {
	v = x + 1;
	c = x + 0x101;
};

inline struct ids *me = xlate <struct ids *> (curthread);

BEGIN
{
	printf("%d %d\n", xlate <struct ids *> (curthread)->pid == tid, me->twice == 2 * pid);
	printf("%s\n", me->name);
	printf("%d %d\n", xlate <struct num> (41).v, xlate <struct num> (1).c);
	exit(0);
}
