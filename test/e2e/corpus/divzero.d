/* flags: -q */
BEGIN { x = 0; y = 1 / x; printf("not reached\n"); }
BEGIN { printf("goes on\n"); exit(0); }
