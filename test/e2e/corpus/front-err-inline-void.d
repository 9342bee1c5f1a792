/* flags: -xerrtags */
inline void v = 3; BEGIN { exit(0); }