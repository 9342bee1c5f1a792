/* flags: -xerrtags */
/* Agrees with the reference DTrace (message, tag and exit status). */
BEGIN { @a = lquantize(1, 0, 100000, 0x10000); }
