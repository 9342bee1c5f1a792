/* flags: -xerrtags */
struct s { int a; long a; }; BEGIN { exit(0); }