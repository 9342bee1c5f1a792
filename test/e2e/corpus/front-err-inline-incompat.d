/* flags: -xerrtags */
inline string s = 3; BEGIN { exit(0); }