/* flags: -xerrtags */
inline int x = 3; inline int x = 4; BEGIN { exit(0); }