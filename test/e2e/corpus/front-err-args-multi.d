/* flags: -xerrtags */
/* Every system call has its own arguments: args[] of syscall:::entry has no one type. */
syscall:::entry { trace(args[0]); }
