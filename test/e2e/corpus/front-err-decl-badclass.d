/* flags: -xerrtags */
/* C's static, register and auto storage classes have no meaning in D. */
static int hits;
BEGIN { exit(0); }
