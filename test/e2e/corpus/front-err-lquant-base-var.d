/* flags: -xerrtags */
/* Agrees with the reference DTrace (message, tag and exit status). */
BEGIN { x = 0; @a = lquantize(1, x, 10); }
