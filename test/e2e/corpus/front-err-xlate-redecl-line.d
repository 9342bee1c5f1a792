/* flags: -xerrtags */
/* Agrees with the reference DTrace (output, error tag and message, exit status). */
struct in { int ii; };
struct out { int oi; };
translator struct out < struct in *i > {
	oi = i->ii;
};
translator struct out < struct in *j > {
	oi = j->ii;
};
BEGIN { exit(0); }
