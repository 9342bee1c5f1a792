/* flags: -xerrtags */
enum e { A = pid }; BEGIN { exit(0); }