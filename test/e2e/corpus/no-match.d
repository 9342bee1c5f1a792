syscall::nosuchcall:entry { }
