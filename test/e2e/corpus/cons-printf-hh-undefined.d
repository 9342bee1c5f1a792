/* DTrace's conversion table has no hh prefix. */
BEGIN { printf("%hhd\n", (char)1); exit(0); }
