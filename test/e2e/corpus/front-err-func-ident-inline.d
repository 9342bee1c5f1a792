/* flags: -xerrtags */
/* Agrees with the reference DTrace (message, tag and exit status). */
inline int x = 1; BEGIN { trace(x()); }
