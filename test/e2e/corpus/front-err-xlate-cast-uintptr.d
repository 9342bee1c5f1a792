/* flags: -xerrtags */
/* Agrees with the reference DTrace (output, error tag and message, exit status). */
struct in { int ii; };
struct out { int oi; };
translator struct out < struct in *i > { oi = i->ii; };
struct in *f;
BEGIN
{
	addr = (uintptr_t)xlate<struct out *>(f);
}
