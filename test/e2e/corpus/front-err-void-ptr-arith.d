/* flags: -xerrtags */
BEGIN { trace((void *)curthread + 1); }