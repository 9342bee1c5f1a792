/* flags: -q */
BEGIN { x = 1; }
BEGIN /x == 1/ { printf("second\n"); x = 2; }
BEGIN /x == 1/ { printf("never\n"); }
BEGIN /x == 2/ { printf("third\n"); exit(0); }
