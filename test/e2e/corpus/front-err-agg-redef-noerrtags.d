/* flags: -q */
/* Agrees with the reference DTrace (output, error tag and message, exit status). */
BEGIN { @a[(char)1] = count(); @a[(long)1] = count(); @a[2] = sum(3); exit(0); }
