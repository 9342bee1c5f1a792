/* flags: -xerrtags */
/* Agrees with the reference DTrace (output, error tag and message, exit status). */
self int vmlinux`x;
BEGIN { exit(0); }
