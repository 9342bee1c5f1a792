/* flags: -q */
/* Agrees with the reference DTrace (output and exit status). */
BEGIN { s = "abc"; } BEGIN /(s < "b") == (s != "zzz")/ { printf("yes\n"); exit(0); }
