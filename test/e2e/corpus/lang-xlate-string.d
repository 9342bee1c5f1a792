/* flags: -q */
/* Agrees with the reference DTrace (output and exit status). */
struct out { string s; }; translator struct out < struct task_struct *t > { s = stringof(t->comm); }; BEGIN { printf("%s\n", xlate <struct out> (curthread).s); exit(0); }
