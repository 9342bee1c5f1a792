/* flags: -xerrtags */
int int x; BEGIN { exit(0); }