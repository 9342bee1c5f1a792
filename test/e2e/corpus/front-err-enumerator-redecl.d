/* flags: -xerrtags */
enum e { A, B }; enum f { A }; BEGIN { exit(0); }