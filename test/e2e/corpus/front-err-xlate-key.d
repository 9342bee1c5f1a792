/* flags: -xerrtags */
/* Agrees with the reference DTrace (output, error tag and message, exit status). */
struct in { int ii; };
struct out { int oi; };
translator struct out < struct in *i > { oi = i->ii; };
struct in *f;
BEGIN { @a[xlate<struct out *>(f)] = count(); exit(0); }
