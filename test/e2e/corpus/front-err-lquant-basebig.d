/* flags: -xerrtags */
/* Agrees with the reference DTrace (message, tag and exit status). */
BEGIN { @a = lquantize(1, 0x80000000, 0x80000010); }
