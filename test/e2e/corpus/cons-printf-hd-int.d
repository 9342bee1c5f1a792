/* %hd takes a short only. */
BEGIN { printf("%hd\n", 1); exit(0); }
