/* flags: -xerrtags */
BEGIN { trace(curthread->no_such_member); }