/* flags: -q */
/* Once a clause has called exit(), the rest of that clause still records, but the probe's later
   clauses do not run (their aggregation stays empty); END's clauses all run even after an exit()
   in END. (expected output taken from the reference DTrace for Linux) */
BEGIN { printf("a\n"); exit(0); printf("b\n"); }
BEGIN { printf("c\n"); @x = count(); }
END { printf("end\n"); exit(0); }
END { printf("end 2\n"); }
