/* flags: -xerrtags */
/* Agrees with the reference DTrace (message, tag and exit status). */
BEGIN { trace(curthread->comm[16]); }
