/* flags: -xerrtags */
inline int first = args[0];
BEGIN { exit(0); }
