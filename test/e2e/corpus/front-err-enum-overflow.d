/* flags: -xerrtags */
enum e { BIG = 0x80000000 }; BEGIN { exit(0); }