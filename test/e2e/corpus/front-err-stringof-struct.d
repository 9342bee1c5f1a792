/* flags: -xerrtags */
BEGIN { trace(stringof(curthread->se)); }