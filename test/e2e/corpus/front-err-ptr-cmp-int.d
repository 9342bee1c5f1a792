/* flags: -xerrtags */
BEGIN { trace(curthread == 1); }