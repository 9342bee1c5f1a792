/* flags: -xerrtags */
BEGIN { trace((&curthread->pid)->x); }