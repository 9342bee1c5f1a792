/* flags: -xerrtags */
enum e { pid }; BEGIN { exit(0); }