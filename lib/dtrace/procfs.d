/*
 * The process model of D on Linux: psinfo_t and lwpsinfo_t (the proc(4) structures D programs
 * know), translated from the kernel's struct task_struct, and curpsinfo / curlwpsinfo.
 *
 * Members this kernel cannot provide from the task alone (pr_size, pr_rssize, pr_pctcpu,
 * pr_pctmem, a process's pr_time and pr_ctime) have no translation: using one is D_XLATE_NOCONV.
 * The timestruc_t members are translated field by field: pr_start is the start of the process
 * (its thread, in lwpsinfo_t) on the wall clock, task start_time being on timestamp's clock;
 * lwpsinfo_t's pr_time is the thread's time on CPU.
 *
 * The argument and environment areas are the process's user memory, which a probe can read only
 * in that address space: pr_psargs, pr_argc and pr_envp are read when the task shares the
 * current thread's mm (its own thread, or a child fork() has just copied); otherwise they are
 * "<unknown>" (as DTrace for Linux has it; a kernel thread's is its name), 0 and 0. At exec the initial stack holds argc at mm->start_stack, then argv[],
 * a NULL, then envp[].
 */

typedef id_t taskid_t;
typedef id_t projid_t;
typedef id_t poolid_t;
typedef id_t zoneid_t;
typedef id_t psetid_t;

typedef struct timestruc {
	int64_t tv_sec;
	long tv_nsec;
} timestruc_t;

typedef struct lwpsinfo {
	int pr_flag;
	int pr_lwpid;
	uintptr_t pr_addr;
	uintptr_t pr_wchan;
	char pr_stype;
	char pr_state;
	char pr_sname;
	char pr_nice;
	short pr_syscall;
	char pr_oldpri;
	char pr_cpu;
	int pr_pri;
	ushort_t pr_pctcpu;
	ushort_t pr_pad;
	timestruc_t pr_start;
	timestruc_t pr_time;
	char pr_clname[8];
	char pr_name[16];
	processorid_t pr_onpro;
	processorid_t pr_bindpro;
	psetid_t pr_bindpset;
	int pr_lgrp;
	int pr_filler[4];
} lwpsinfo_t;

typedef struct psinfo {
	int pr_flag;
	int pr_nlwp;
	pid_t pr_pid;
	pid_t pr_ppid;
	pid_t pr_pgid;
	pid_t pr_sid;
	uid_t pr_uid;
	uid_t pr_euid;
	gid_t pr_gid;
	gid_t pr_egid;
	uintptr_t pr_addr;
	size_t pr_size;
	size_t pr_rssize;
	size_t pr_pad1;
	struct tty_struct *pr_ttydev;
	ushort_t pr_pctcpu;
	ushort_t pr_pctmem;
	timestruc_t pr_start;
	timestruc_t pr_time;
	timestruc_t pr_ctime;
	char pr_fname[16];
	char pr_psargs[80];
	int pr_wstat;
	int pr_argc;
	uintptr_t pr_argv;
	uintptr_t pr_envp;
	char pr_dmodel;
	char pr_pad2[3];
	taskid_t pr_taskid;
	projid_t pr_projid;
	int pr_nzomb;
	poolid_t pr_poolid;
	zoneid_t pr_zoneid;
	id_t pr_contract;
	int pr_filler[1];
	lwpsinfo_t pr_lwp;
} psinfo_t;

inline char PR_MODEL_ILP32 = 1;
inline char PR_MODEL_LP64 = 2;

inline int PR_STOPPED = 0x00000001;

/* pr_state values. */
inline char SSLEEP = 1;
inline char SRUN = 2;
inline char SZOMB = 3;
inline char SSTOP = 4;
inline char SIDL = 5;
inline char SONPROC = 6;
inline char SWAIT = 7;

/* Linux's process id types (enum pid_type) and task states (task_struct.__state bits). */
inline int PIDTYPE_PID = 0;
inline int PIDTYPE_TGID = 1;
inline int PIDTYPE_PGID = 2;
inline int PIDTYPE_SID = 3;

inline unsigned int TASK_INTERRUPTIBLE = 0x0001;
inline unsigned int TASK_UNINTERRUPTIBLE = 0x0002;
inline unsigned int __TASK_STOPPED = 0x0004;
inline unsigned int __TASK_TRACED = 0x0008;
inline unsigned int EXIT_DEAD = 0x0010;
inline unsigned int EXIT_ZOMBIE = 0x0020;
inline unsigned int TASK_DEAD = 0x0080;
inline unsigned int TASK_WAKEKILL = 0x0100;
inline unsigned int TASK_WAKING = 0x0200;

translator psinfo_t < struct task_struct *T > {
	pr_nlwp = 1;
	pr_pid = T->tgid;
	pr_ppid = T->real_parent->tgid;
	pr_pgid = T->signal->pids[PIDTYPE_PGID]->numbers[0].nr;
	pr_sid = T->signal->pids[PIDTYPE_SID]->numbers[0].nr;
	pr_uid = T->cred->uid.val;
	pr_euid = T->cred->euid.val;
	pr_gid = T->cred->gid.val;
	pr_egid = T->cred->egid.val;
	pr_addr = (uintptr_t)T;
	pr_ttydev = T->signal->tty ? T->signal->tty : (struct tty_struct *)-1;
	pr_fname = T->comm;
	pr_psargs = T->mm != NULL && T->mm != curthread->mm ? "<unknown>" :
	    T->mm == NULL || T->mm->arg_end <= T->mm->arg_start ? stringof(T->comm) :
	    memstr((void *)copyin(T->mm->arg_start, (T->mm->arg_end - T->mm->arg_start > 80 ? 80 :
	    T->mm->arg_end - T->mm->arg_start)), ' ',
	    (T->mm->arg_end - T->mm->arg_start > 80 ? 80 :
	    T->mm->arg_end - T->mm->arg_start));
	pr_wstat = 0;
	pr_argc = T->mm == NULL || T->mm != curthread->mm ? 0 :
	    *(int *)copyin(T->mm->start_stack, sizeof (int));
	pr_argv = T->mm == NULL ? 0 : T->mm->start_stack + sizeof (uintptr_t);
	pr_envp = T->mm == NULL || T->mm != curthread->mm ? 0 : T->mm->start_stack +
	    sizeof (uintptr_t) * (*(long *)copyin(T->mm->start_stack, sizeof (long)) + 2);
	pr_start.tv_sec = (walltimestamp - timestamp + T->group_leader->start_time) / 1000000000;
	pr_start.tv_nsec = (walltimestamp - timestamp + T->group_leader->start_time) % 1000000000;
	pr_dmodel = PR_MODEL_LP64;
	pr_taskid = 0;
	pr_projid = 0;
	pr_nzomb = 0;
	pr_poolid = 0;
	pr_zoneid = 0;
	pr_contract = 0;
};

translator lwpsinfo_t < struct task_struct *T > {
	pr_flag = (T->__state & __TASK_STOPPED) ? PR_STOPPED : 0;
	pr_lwpid = T->pid;
	pr_addr = (uintptr_t)T;
	pr_wchan = 0;
	pr_stype = 0;
	pr_state = (T->__state & (TASK_INTERRUPTIBLE | TASK_UNINTERRUPTIBLE)) ? SSLEEP :
	    (T->__state & (__TASK_STOPPED | __TASK_TRACED)) ? SSTOP :
	    (T->__state & (EXIT_ZOMBIE | EXIT_DEAD | TASK_DEAD)) ? SZOMB :
	    (T->__state & (TASK_WAKEKILL | TASK_WAKING)) ? SWAIT : SRUN;
	pr_sname = (T->__state & (TASK_INTERRUPTIBLE | TASK_UNINTERRUPTIBLE)) ? 'S' :
	    (T->__state & (__TASK_STOPPED | __TASK_TRACED)) ? 'T' :
	    (T->__state & (EXIT_ZOMBIE | EXIT_DEAD | TASK_DEAD)) ? 'Z' :
	    (T->__state & (TASK_WAKEKILL | TASK_WAKING)) ? 'W' : 'R';
	pr_pri = T->prio;
	pr_name = T->comm;
	pr_onpro = T->thread_info.cpu;
	pr_start.tv_sec = (walltimestamp - timestamp + T->start_time) / 1000000000;
	pr_start.tv_nsec = (walltimestamp - timestamp + T->start_time) % 1000000000;
	pr_time.tv_sec = T->se.sum_exec_runtime / 1000000000;
	pr_time.tv_nsec = T->se.sum_exec_runtime % 1000000000;
};

inline psinfo_t *curpsinfo = xlate <psinfo_t *> (curthread);
inline lwpsinfo_t *curlwpsinfo = xlate <lwpsinfo_t *> (curthread);

/* Process stop flags DTrace for Linux's procfs.d names (values as the reference prints them). */
inline int PR_DSTOP = 4;
inline int PR_IDLE = 268435456;
inline int PR_ISTOP = 2;
