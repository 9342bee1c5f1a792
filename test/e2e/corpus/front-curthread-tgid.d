/* flags: -q */
BEGIN { printf("%d\n", curthread->tgid == pid); exit(0); }
