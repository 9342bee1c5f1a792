/* flags: -xerrtags */
struct s { void v; }; BEGIN { exit(0); }