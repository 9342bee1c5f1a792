/* flags: -xerrtags */
/* The preprocessor's and loader's paths are command-line options only (as Oracle DTrace 2.0.1). */
#pragma D option incdir=/tmp

BEGIN
{
	exit(0);
}
