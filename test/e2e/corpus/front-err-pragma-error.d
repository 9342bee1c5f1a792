/* flags: -xerrtags */
/* #error stops the compile with its words. */
#error this script needs "a newer kernel"
BEGIN { exit(0); }
