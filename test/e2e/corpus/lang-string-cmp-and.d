/* flags: -q */
/* Agrees with the reference DTrace (output and exit status). */
BEGIN { a = "x"; b = "y"; printf("%d %d %d\n", a < b && b > a, a == "x" || b == "x", !(a == b)); exit(0); }
