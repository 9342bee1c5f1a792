/* flags: -xerrtags */
struct s { char v[0x100000000]; }; BEGIN { exit(0); }