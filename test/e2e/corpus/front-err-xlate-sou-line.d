/* flags: -xerrtags */
/* Agrees with the reference DTrace (output, error tag and message, exit status). */
struct in { int ii; };
translator int < struct in *i > {
	oi = i->ii;
};
BEGIN { exit(0); }
