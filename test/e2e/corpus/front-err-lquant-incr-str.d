/* flags: -xerrtags */
/* Agrees with the reference DTrace (message, tag and exit status). */
BEGIN { @a = lquantize(1, 0, 10, 1, "a"); }
