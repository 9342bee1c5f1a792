/* flags: -xerrtags */
struct s { int v[-1]; }; BEGIN { exit(0); }