/* flags: -xerrtags -x scratchsize=256 */
/* Agrees with the reference DTrace (output and exit status). */
BEGIN { trace(alloca(100000)); }
