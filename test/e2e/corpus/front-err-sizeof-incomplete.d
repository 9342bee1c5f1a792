/* flags: -xerrtags */
BEGIN { trace(sizeof(struct dtrace_no_such_struct)); }