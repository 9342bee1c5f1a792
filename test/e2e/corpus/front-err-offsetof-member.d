/* flags: -xerrtags */
/* Agrees with the reference DTrace (tag, message with its final period, status). */
BEGIN { trace(offsetof(struct task_struct, no_such_member)); }