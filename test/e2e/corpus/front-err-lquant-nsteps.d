/* flags: -xerrtags */
/* Agrees with the reference DTrace (message, tag and exit status). */
BEGIN { @a = lquantize(1, -2147483648, 2147483647, 1); }
