/* flags: -xerrtags */
BEGIN { trace((struct task_struct)1); }