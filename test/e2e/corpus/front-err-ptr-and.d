/* flags: -xerrtags */
BEGIN { trace(curthread & 2); }