/* flags: -xerrtags */
BEGIN { trace(offsetof(struct task_struct, no_such_member)); }