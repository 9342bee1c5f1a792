/* flags: -xerrtags */
struct s { void v[3]; }; BEGIN { exit(0); }