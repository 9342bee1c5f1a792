/* flags: -q */
/* Agrees with the reference DTrace (output and exit status). */
BEGIN { printf("%x %x %d\n", REQ_WRITE, REQ_SYNC, BIO_USER_MAPPED); exit(0); }
