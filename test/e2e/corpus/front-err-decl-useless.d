/* flags: -xerrtags */
int; BEGIN { exit(0); }