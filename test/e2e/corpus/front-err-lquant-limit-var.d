/* flags: -xerrtags */
/* Agrees with the reference DTrace (message, tag and exit status). */
BEGIN { x = 10; @a = lquantize(1, 0, x); }
