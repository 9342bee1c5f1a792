/* flags: -xerrtags */
struct s { struct dtrace_undefined_tag x; }; BEGIN { exit(0); }