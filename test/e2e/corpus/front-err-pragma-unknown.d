/* flags: -xerrtags */
#pragma D frobnicate
BEGIN { exit(0); }
