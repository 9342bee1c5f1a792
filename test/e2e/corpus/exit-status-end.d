/* flags: -q */
/* The last exit() consumed gives the exit status: an END clause's exit() overrides BEGIN's (as the
   reference DTrace for Linux, and libdtrace, which keeps the last exit record's value). */
BEGIN { exit(2); }
END { printf("end\n"); exit(3); }
