/* flags: -q -x pspec */
/* -x pspec: a script is read as -n descriptions are, so a bare description is a clause. */
BEGIN { printf("begin\n"); exit(0); }
END
