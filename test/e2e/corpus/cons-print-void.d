/* print() of a void expression is an error. */
BEGIN { print((void)0); exit(0); }
