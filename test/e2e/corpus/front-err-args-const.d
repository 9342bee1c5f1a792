/* flags: -xerrtags */
syscall::write:entry { i = 1; trace(args[i]); }
