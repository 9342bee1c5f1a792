/* flags: -xerrtags */
/* A pragma is acted on as it is read: a bad one before a syntax error is the error reported
   (reference DTrace for Linux 2.0.1 agrees). */
inline int limit

#pragma D attributes not_an_attribute limit

BEGIN { exit(0); }
