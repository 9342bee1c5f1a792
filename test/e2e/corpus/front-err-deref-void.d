/* flags: -xerrtags */
BEGIN { trace(*(void *)curthread); }