/* flags: -xerrtags */
struct s { char *p : 3; }; BEGIN { exit(0); }