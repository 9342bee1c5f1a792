/* flags: -xerrtags */
BEGIN { trace(curthread + curthread); }