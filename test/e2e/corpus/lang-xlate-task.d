/* flags: -q */
/* Agrees with the reference DTrace (output and exit status). */
typedef struct { int p; } myinfo_t; translator myinfo_t < struct task_struct *t > { p = t->pid; }; BEGIN { printf("%d\n", xlate <myinfo_t> (curthread).p == pid); exit(0); }
