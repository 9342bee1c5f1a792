/* flags: -xerrtags */
#pragma D binding "version one" myinline
BEGIN { exit(0); }
