/* flags: -xerrtags */
enum e { A }; enum e { B }; BEGIN { exit(0); }